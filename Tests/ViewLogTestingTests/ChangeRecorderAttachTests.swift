import Foundation
import Testing
import ViewLog
import ViewLogTesting

/// One `ChangeRecorder` records one controller (issue 38): a second attach traps, naming the first controller,
/// instead of mixing two controllers' snapshots into a recording that then validates as hundreds of bogus problems.
@Suite struct ChangeRecorderAttachTests {
    static let employee = EntityDescription(name: "Employee", idType: .string, attributes: [
        Attribute(name: "height", type: .int), Attribute(name: "name", type: .string),
    ])

    static func controller(_ predicate: String) throws -> ResultsController {
        let objects: [(ObjectID, ObjectValues)] = [(.string("e1"), ["height": 180, "name": "Ann"]),
                                                   (.string("e2"), ["height": 160, "name": "Bob"])]
        return try ResultsController(fetchRequest: FetchRequest(entity: "Employee", predicate: try ViewPredicate(predicate),
                                                                sortDescriptors: [ViewSortDescriptor(key: "name")]),
                                     entity: employee, objects: objects)
    }

    @Test func aSecondControllerTrapsNamingTheFirst() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let tall = try ChangeRecorderAttachTests.controller("height > 170")
            let short = try ChangeRecorderAttachTests.controller("height <= 170")
            let recorder = ChangeRecorder()
            recorder.attach(to: tall)
            recorder.attach(to: short)
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("already records another controller, the controller of Employee where height > 170 sorted by name"),
                "\(message)")
        #expect(message.contains("make one ChangeRecorder per controller"))
    }

    @Test func attachingAsDelegateAfterObservingTraps() async {
        await #expect(processExitsWith: .failure) {
            let tall = try ChangeRecorderAttachTests.controller("height > 170")
            let short = try ChangeRecorderAttachTests.controller("height <= 170")
            let recorder = ChangeRecorder()
            recorder.attach(to: tall)
            recorder.attachAsDelegate(to: short)
        }
    }

    /// The same controller twice would record every batch twice.
    @Test func theSameControllerTwiceTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let tall = try ChangeRecorderAttachTests.controller("height > 170")
            let recorder = ChangeRecorder()
            recorder.attachAsDelegate(to: tall)
            recorder.attach(to: tall)
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("already records this controller"))
    }

    /// One recorder per controller is the way: each validates its own batches.
    @Test func oneRecorderPerControllerRecordsEach() throws {
        let tall = try Self.controller("height > 170"), short = try Self.controller("height <= 170")
        let tallRecorder = ChangeRecorder(), shortRecorder = ChangeRecorder()
        tallRecorder.attach(to: tall)
        shortRecorder.attach(to: short)
        #expect(tallRecorder.snapshots == [tall.snapshot] && shortRecorder.snapshots == [short.snapshot])
        #expect(tallRecorder.validate().isEmpty && shortRecorder.validate().isEmpty)
    }
}
