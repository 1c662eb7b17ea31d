import Foundation
import Testing

/// A readable record of CLI runs for a golden file:
///
/// ```
/// $ viewlog append shop <<EOF
/// {"insert": "Employee", "id": "e1", "values": {"name": "Ann"}}
/// EOF
/// 1
/// ! error: …          (standard error, one `! ` line each)
/// [exit 1]            (only when the status is not 0)
/// ```
///
/// Standard output is recorded with commit times normalised (see ``Normalise``).
struct Transcript {
    private(set) var text = ""

    /// Records a run.
    mutating func record(_ r: RunResult) {
        if !text.isEmpty { text += "\n" }
        text += "$ viewlog " + r.arguments.map(Transcript.quoted).joined(separator: " ")
        if let input = r.input {
            text += " <<EOF\n" + input + (input.hasSuffix("\n") || input.isEmpty ? "" : "\n") + "EOF\n"
        } else {
            text += "\n"
        }
        text += r.out
        for line in r.errorLines { text += "! \(line)\n" }
        if r.status != 0 { text += "[exit \(r.status)]\n" }
    }

    /// Adds a comment line (`# …`), e.g. what happened between runs.
    mutating func note(_ comment: String) {
        if !text.isEmpty { text += "\n" }
        text += "# \(comment)\n"
    }

    /// An argument as a shell would need it: bare when it is plain, else in single quotes.
    static func quoted(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,@+".contains($0) }
        if plain { return argument }
        if argument.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            // Bash's $'…' quoting, so that the transcript keeps one line per command.
            var out = "$'"
            for scalar in argument.unicodeScalars {
                switch scalar {
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\\": out += "\\\\"
                case "'": out += "\\'"
                default:
                    out += scalar.properties.generalCategory == .control ? "\\x" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16) : String(scalar)
                }
            }
            return out + "'"
        }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Golden files under `Tests/viewlogTests/Goldens/`, compared exactly; `UPDATE_GOLDENS=1` rewrites them (review
/// the result with `git diff`).
enum Golden {
    static let directory = CLI.packageRoot.appendingPathComponent("Tests/viewlogTests/Goldens", isDirectory: true)
    static var updating: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] == "1" }

    static func path(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The stored golden text, or nil when there is none.
    static func stored(_ name: String) -> String? { try? String(contentsOf: path(name), encoding: .utf8) }

    /// A description of the first difference between `expected` and `actual`, or nil when they are equal.
    static func mismatch(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(e.count, a.count) {
            let el = i < e.count ? String(e[i]) : "<end of file>"
            let al = i < a.count ? String(a[i]) : "<end of file>"
            if el != al { return "line \(i + 1):\n  expected: \(el)\n  actual:   \(al)" }
        }
        return "the texts differ (line endings?)"
    }

    /// Checks `actual` against the golden file `name` (writes it instead under `UPDATE_GOLDENS=1`).
    static func check(_ name: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if updating {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                if stored(name) != actual { try Data(actual.utf8).write(to: path(name)) }
            } catch {
                Issue.record("cannot write golden \(name): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = stored(name) else {
            Issue.record("no golden file \(name); run UPDATE_GOLDENS=1 swift test --filter viewlogTests", sourceLocation: sourceLocation)
            return
        }
        if let difference = mismatch(expected: expected, actual: actual) {
            Issue.record("""
                output differs from golden \(name) at \(difference)
                (if the change is intended: UPDATE_GOLDENS=1 swift test --filter viewlogTests, and review git diff)
                """, sourceLocation: sourceLocation)
        }
    }
}
