import Foundation
import Testing
import ViewLog
import ViewLogTesting

/// A user's file imports Foundation (for `Date`, `URL`, …) beside ViewLog: every public ViewLog name must resolve
/// without qualification there (names Foundation has too, such as `IndexPath`, `Predicate` and `SortDescriptor`,
/// must not be ambiguous). This file compiling is the test; the body checks that ViewLog's index paths are
/// Foundation's.
@Suite("Foundation coexistence")
struct FoundationCoexistenceTests {
    @Test func viewLogNamesResolveBesideFoundation() throws {
        let predicate: ViewPredicate = try ViewPredicate("height > 170")
        let sort: [ViewSortDescriptor] = try ViewSortDescriptor.parse("name desc")
        let request = FetchRequest(entity: "Employee", predicate: predicate, sortDescriptors: sort)
        let path: IndexPath = IndexPath(row: 2, section: 1)
        let foundationPath: Foundation.IndexPath = path
        #expect(foundationPath == [1, 2])
        #expect(path.section == 1 && path.row == 2)
        let change = RowChange.insert(.string("e1"), to: path, seq: 1)
        #expect(change.to == [1, 2])
        let types: [Any.Type] = [Attribute.self, AttributeType.self, Change.self, ChangeSet.self, Context.self,
                                 EntityDescription.self, LogStore.self, MergePolicy.self, ObjectID.self,
                                 ResultsController.self, Schema.self, SectionChange.self, SectionInfo.self,
                                 Timestamp.self, Transaction.self, Value.self, ViewEvent.self, ViewSnapshot.self,
                                 ChangeRecorder.self, ChangeSetValidator.self, ChangeSetRenderer.self]
        #expect(types.count == 21)
        #expect(request.entity == "Employee")
        let when: Date = Date(timeIntervalSince1970: 0)
        #expect(Timestamp(date: when) == Timestamp(milliseconds: 0) && Timestamp(milliseconds: 1500).date == Date(timeIntervalSince1970: 1.5))
    }
}
