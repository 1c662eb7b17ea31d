import Foundation
import Testing
import ViewLog
import ViewLogTesting
@testable import EmployeeDirectory

@MainActor
@Suite struct DirectoryTests {
    final class Store {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("viewlog-example-\(UUID().uuidString)").path
        let store: LogStore
        init() throws { store = try LogStore.create(at: path, schema: try Schema(jsonText: directorySchemaText)) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func aBackgroundHireThatMatchesAppearsOnTheScreen() async throws {
        let fixture = try Store()
        let screen = try DirectoryScreen(store: fixture.store)
        let recorder = ChangeRecorder()
        recorder.attach(to: screen.controller)          // beside the screen's own delegate
        let events = screen.controller.changes             // subscribed before the save: loses nothing

        try hire([Employee(id: "e1", name: "Ann", height: 180, sectionName: "A", hired: Date(timeIntervalSince1970: 0)),
                  Employee(id: "e2", name: "Bob", height: 160, sectionName: "B")], into: fixture.store)
        try screen.context.refresh()
        #expect(screen.sections.map(\.name) == ["A"])
        #expect(screen.sections.first?.rows == ["Ann"])

        // Bob grows: a sibling context's update makes him newly match — the NSFetchedResultsController bug case.
        let sibling = try Context(store: fixture.store, name: "sibling")
        var bob = try #require(try sibling.object(Employee.self, id: "e2"))
        bob.height = 185
        try sibling.update(bob)
        try sibling.save()
        try screen.context.refresh()
        #expect(screen.sections.map(\.name) == ["A", "B"])
        #expect(screen.batchesApplied == 2 && recorder.batches.count == 2)
        #expect(recorder.validate().isEmpty)
        let inserted = recorder.batches[1].rowChanges.first
        #expect(inserted?.id == "e2" && inserted?.kind == .insert && inserted?.to == IndexPath(row: 0, section: 1))
        // The batch as text, against Goldens/ (UPDATE_GOLDENS=1 rewrites it; Package.swift excludes the folder).
        let goldens = GoldenFile(directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens"))
        goldens.expect(ChangeSetRenderer.render(recorder.batches[1]), matches: "bob-grows.txt")

        var iterator = events.makeAsyncIterator()
        guard case .reload? = await iterator.next() else { Issue.record("expected the view first"); return }
        for (i, expected) in recorder.batches.enumerated() {
            guard case .changes(let batch)? = await iterator.next() else { Issue.record("a batch is missing"); return }
            try ChangeSetValidator.check(batch, from: recorder.snapshots[i], to: recorder.snapshots[i + 1])
            #expect(batch == expected)
        }
    }

    /// The screen follows a background writer on its own once it starts following: no refresh, no awaited loop.
    @Test func aFollowingScreenShowsABackgroundHire() async throws {
        let fixture = try Store()
        let screen = try DirectoryScreen(store: fixture.store)
        screen.startFollowing()                            // returns at once
        try hire([Employee(id: "e1", name: "Ann", height: 180, sectionName: "A")], into: fixture.store)
        for _ in 0..<1000 where screen.sections.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(screen.sections.map(\.name) == ["A"] && screen.batchesApplied == 1)
        screen.stopFollowing()
    }
}
