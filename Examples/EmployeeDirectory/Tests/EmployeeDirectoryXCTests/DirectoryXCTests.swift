import EmployeeDirectory
import Foundation
import ViewLog
import ViewLogTesting
import XCTest

/// The tall-employees view checked from XCTest, which does not import Swift Testing: `ChangeSetValidator.check`
/// compiles here and throws ``ChangeSetValidationError`` for a wrong batch.
final class DirectoryXCTests: XCTestCase {
    var path = ""
    override func setUp() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("viewlog-example-\(UUID().uuidString)").path
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: path) }

    func testEveryBatchIsValidAndAWrongOneThrows() throws {
        let store = try LogStore.create(at: path, schema: try Schema(jsonText: directorySchemaText))
        let context = try Context(store: store, name: "ui")
        let tall = try context.makeResultsController(view: "tall")
        let recorder = ChangeRecorder()
        recorder.attach(to: tall)
        try hire([Employee(id: "e1", name: "Ann", height: 180, sectionName: "A"),
                  Employee(id: "e2", name: "Bob", height: 160, sectionName: "B")], into: store)
        try context.refresh()
        try context.update("Employee", id: "e2", values: ["height": 185])
        try context.save()
        XCTAssertEqual(recorder.batches.count, 2)
        for (i, batch) in recorder.batches.enumerated() {
            XCTAssertNoThrow(try ChangeSetValidator.check(batch, from: recorder.snapshots[i], to: recorder.snapshots[i + 1]))
        }
        let forgetful = ChangeSet(from: 1, to: 2, isSectioned: true, sectionChanges: recorder.batches[1].sectionChanges, rowChanges: [])
        XCTAssertThrowsError(try ChangeSetValidator.check(forgetful, from: recorder.snapshots[1], to: recorder.snapshots[2])) { error in
            guard let failure = error as? ChangeSetValidationError else { return XCTFail("\(error)") }
            XCTAssertTrue(failure.problems.contains { $0.rule == "missing insert" }, "\(failure)")
            XCTAssertEqual(error.localizedDescription, failure.description)
        }
    }
}
