import Foundation
import Testing
import ViewLogTesting

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

/// Golden files under `Tests/viewlogTests/Goldens/`, compared exactly through ViewLogTesting's ``GoldenFile``;
/// `UPDATE_GOLDENS=1` rewrites them (review the result with `git diff`).
enum Golden {
    static let files = GoldenFile(directory: CLI.packageRoot.appendingPathComponent("Tests/viewlogTests/Goldens", isDirectory: true))

    /// The stored golden text, or nil when there is none.
    static func stored(_ name: String) -> String? { files.stored(name) }

    /// The line diff between `expected` and `actual`, or nil when they are equal.
    static func mismatch(expected: String, actual: String) -> String? {
        GoldenFile.lineDiff(expected: expected, actual: actual)
    }

    /// Checks `actual` against the golden file `name` (writes it instead under `UPDATE_GOLDENS=1`).
    static func check(_ name: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) {
        files.expect(actual, matches: name, sourceLocation: sourceLocation)
    }
}
