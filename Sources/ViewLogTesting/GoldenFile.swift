#if canImport(Testing)
import Foundation
import Testing

/// Golden files for your tests: text (a rendered change set, a snapshot, a CLI transcript) compared exactly with
/// a file kept in your repository, a line diff on mismatch, and a record mode that rewrites the files.
///
/// ```swift
/// let goldens = GoldenFile(directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
///                                         .appendingPathComponent("Goldens"))
/// goldens.expect(ChangeSetRenderer.render(changeSet), matches: "tall-after-promotion.txt")
/// ```
///
/// Run with `UPDATE_GOLDENS=1` (or the variable you name) to write the files instead, then review them with
/// `git diff` before committing: a golden is only as good as the review of its changes.
public struct GoldenFile: Sendable {
    /// The folder holding the golden files.
    public var directory: URL
    /// Whether ``expect(_:matches:sourceLocation:)`` writes files instead of comparing.
    public var isRecording: Bool

    /// Golden files in `directory`, recording when the environment variable `recordVariable` is `1`.
    public init(directory: URL, recordVariable: String = "UPDATE_GOLDENS") {
        self.directory = directory
        self.isRecording = ProcessInfo.processInfo.environment[recordVariable] == "1"
    }

    /// The stored text of golden `name`, or nil when there is none.
    public func stored(_ name: String) -> String? {
        try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// Checks `actual` against golden `name` and records one issue at the caller's line, with a line diff, when
    /// they differ or the file is missing. In record mode writes `actual` to the file instead (only if it changed).
    public func expect(_ actual: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = directory.appendingPathComponent(name)
        if isRecording {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                if stored(name) != actual { try Data(actual.utf8).write(to: url) }
            } catch {
                Issue.record("cannot write golden \(url.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = stored(name) else {
            Issue.record("no golden file \(url.path): run the tests once with the record variable set (e.g. UPDATE_GOLDENS=1)",
                         sourceLocation: sourceLocation)
            return
        }
        if let diff = GoldenFile.lineDiff(expected: expected, actual: actual) {
            Issue.record("""
                output differs from golden \(name):
                \(diff)
                (if the change is intended, rerun with the record variable set, e.g. UPDATE_GOLDENS=1, and review git diff)
                """, sourceLocation: sourceLocation)
        }
    }

    /// A unified-style line diff (`-` expected, `+` actual, with line numbers), at most `limit` lines of it, or
    /// nil when the texts are equal. A difference only in a trailing newline or line endings is said in words.
    public static func lineDiff(expected: String, actual: String, limit: Int = 40) -> String? {
        guard expected != actual else { return nil }
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let difference = a.difference(from: e)
        guard !difference.isEmpty else { return "the texts differ only in line endings or invisible characters" }
        var lines: [String] = []
        for change in difference {
            switch change {
            case .remove(let offset, let line, _): lines.append("- \(offset + 1): \(line.isEmpty && offset == e.count - 1 ? "<end of file>" : line)")
            case .insert(let offset, let line, _): lines.append("+ \(offset + 1): \(line.isEmpty && offset == a.count - 1 ? "<end of file>" : line)")
            }
            if lines.count == limit {
                lines.append("… (\(difference.count - limit) more changed lines)")
                break
            }
        }
        return lines.joined(separator: "\n")
    }
}
#endif
