import Foundation
import Testing
@_spi(Engine) import ViewLog
import ViewLogTesting

/// ViewLogTesting's Swift Testing helpers: failures reported at the caller's line, golden files with a line diff
/// and a record mode, readable descriptions.
@Suite struct TestingHelpersTests {
    typealias V = ChangeSetValidatorTests

    static var wrong: ChangeSet {
        var rows = V.valid.rowChanges
        rows[1] = .insert(.int(9), to: IndexPath(row: 0, section: 0), seq: 1)
        return ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: V.valid.sectionChanges, rowChanges: rows)
    }

    static func text(_ issue: Issue) -> String { issue.comments.map(\.rawValue).joined(separator: "\n") }

    @Test func checkReportsAtTheCallersLine() throws {
        let line = #line + 2
        try withKnownIssue {
            try ChangeSetValidator.check(Self.wrong, from: V.before, to: V.after)
        } matching: { issue in
            issue.sourceLocation?.line == line && issue.sourceLocation?.fileName == "TestingHelpersTests.swift"
        }
    }

    /// The `SourceLocation` form (a helper passing its caller's location) reports there.
    @Test func checkReportsAtAGivenSourceLocation() throws {
        let location = SourceLocation(fileID: "Helpers/Helper.swift", filePath: "/Helpers/Helper.swift", line: 7, column: 3)
        try withKnownIssue {
            try ChangeSetValidator.check(Self.wrong, from: V.before, to: V.after, sourceLocation: location)
        } matching: { issue in
            issue.sourceLocation == location && Self.text(issue).contains("invalid change set")
        }
        withKnownIssue {
            _ = ChangeSetValidator.expectValid(Self.wrong, from: V.before, to: V.after, sourceLocation: location)
        } matching: { $0.sourceLocation == location }
    }

    /// Outside a test (a detached task has no current test) the check throws every problem instead of recording.
    @Test func checkThrowsOutsideATest() async throws {
        let problems = await Task.detached { () -> [ChangeSetProblem]? in
            do {
                try ChangeSetValidator.check(Self.wrong, from: V.before, to: V.after)
                return nil
            } catch let error as ChangeSetValidationError {
                return error.problems
            } catch {
                return nil
            }
        }.value
        #expect(problems == ChangeSetValidator.validate(Self.wrong, from: V.before, to: V.after)
            + ChangeSetValidator.validateSequential(Self.wrong, from: V.before, to: V.after))
    }

    /// `localizedDescription` is the description (issue 38), for both error types of this module.
    @Test func errorsSayWhatWentWrong() {
        let problem = ChangeSetProblem(rule: "row delete", message: "e1 is still in the view")
        let error = ChangeSetValidationError(problems: [problem, ChangeSetProblem(rule: "result", message: "differs")])
        #expect((problem as any Error).localizedDescription == "row delete: e1 is still in the view")
        #expect((error as any Error).localizedDescription == error.description)
        #expect(problem.errorDescription == problem.description && error.errorDescription == error.description)
    }

    @Test func expectValidRecordsOneIssueAtTheCallersLineAndGoesOn() {
        var result = true
        let line = #line + 2
        withKnownIssue {
            result = ChangeSetValidator.expectValid(Self.wrong, from: V.before, to: V.after)
        } matching: { issue in
            issue.sourceLocation?.line == line && Self.text(issue).contains("invalid change set")
        }
        #expect(result == false)
        #expect(ChangeSetValidator.expectValid(V.valid, from: V.before, to: V.after))
    }

    @Test func goldenFilesDiffByLineAndRecord() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("viewlog-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var goldens = GoldenFile(directory: directory, recordVariable: "VIEWLOG_TEST_NEVER_SET")
        #expect(!goldens.isRecording)
        let text = ChangeSetRenderer.render(V.valid)
        withKnownIssue { goldens.expect(text, matches: "batch.txt") } matching: { Self.text($0).contains("no golden file") }
        goldens.isRecording = true
        goldens.expect(text, matches: "batch.txt")
        #expect(goldens.stored("batch.txt") == text)
        goldens.isRecording = false
        goldens.expect(text, matches: "batch.txt")
        let changed = text.replacingOccurrences(of: "row + 9 [1,1]", with: "row + 9 [1,2]")
        withKnownIssue { goldens.expect(changed, matches: "batch.txt") } matching: { issue in
            let message = Self.text(issue)
            return message.contains("- 4: row + 9 [1,1]") && message.contains("+ 4: row + 9 [1,2]")
        }
        #expect(GoldenFile.lineDiff(expected: "a\nb", actual: "a\nb") == nil)
        #expect(GoldenFile.lineDiff(expected: "a\nb", actual: "a\nb\n")?.contains("<end of file>") == true)
    }

    @Test func changeSetsAndEventsReadWell() {
        let text = V.valid.description
        #expect(text.hasPrefix("ChangeSet 0→1: 2 section changes, 4 row changes"))
        #expect(text.contains("  > 1 [0,0] → [1,0] changed: group (seq 1)"))
        #expect(text.contains("  - section 1 \"C\""))
        #expect(ViewEvent.changes(V.valid).description == text)
        #expect(ViewEvent.reload(V.before).description.hasPrefix("reload: "))
    }
}
