// `swift run directory-check`: the tall-employees view's batches checked from an executable, with no Swift Testing
// (ChangeSetValidator.check throws ChangeSetValidationError here). Exits 1 when a check fails. CI runs it.
import EmployeeDirectory
import Foundation
import ViewLog
import ViewLogTesting

/// Records the view through a hire and a sibling's update, checks every batch, and checks that a wrong batch throws.
/// Returns the number of batches checked.
func checkDirectory(at path: String) throws -> Int {
    let store = try LogStore.create(at: path, schema: try Schema(jsonText: directorySchemaText))
    let context = try Context(store: store, name: "check")
    let tall = try context.makeResultsController(view: "tall")
    let recorder = ChangeRecorder()
    recorder.attach(to: tall)
    try hire([Employee(id: "e1", name: "Ann", height: 180, sectionName: "A"),
              Employee(id: "e2", name: "Bob", height: 160, sectionName: "B")], into: store)
    try context.refresh()
    let sibling = try Context(store: store, name: "sibling")
    try sibling.update("Employee", id: "e2", values: ["height": 185])   // Bob now matches
    try sibling.save()
    try context.refresh()
    for (i, batch) in recorder.batches.enumerated() {
        try ChangeSetValidator.check(batch, from: recorder.snapshots[i], to: recorder.snapshots[i + 1])
    }
    // A batch that forgets Bob's insert must throw, naming the missing insert.
    let forgetful = ChangeSet(from: 1, to: 2, isSectioned: true, sectionChanges: recorder.batches[1].sectionChanges, rowChanges: [])
    do {
        try ChangeSetValidator.check(forgetful, from: recorder.snapshots[1], to: recorder.snapshots[2])
        throw ChangeSetValidationError(problems: [ChangeSetProblem(rule: "directory-check", message: "a wrong batch passed the check")])
    } catch let error as ChangeSetValidationError where error.problems.contains(where: { $0.rule == "missing insert" }) {
        // as expected
    }
    return recorder.batches.count
}

let path = FileManager.default.temporaryDirectory.appendingPathComponent("viewlog-example-check-\(UUID().uuidString)").path
do {
    let batches = try checkDirectory(at: path)
    try? FileManager.default.removeItem(atPath: path)
    print("directory-check: \(batches) batches valid, a wrong one refused")
} catch {
    try? FileManager.default.removeItem(atPath: path)
    print("directory-check: \(error.localizedDescription)")
    exit(1)
}
