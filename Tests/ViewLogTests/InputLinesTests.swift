import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `InputLines.nextLine()` against splitting on `\n`: the same lines, numbered from 1, for random texts small
/// and large (a small string's bytes live in the string itself), ASCII or not, with and without a final `\n`.
@Suite struct InputLinesTests {
    @Test func splitsAsSplittingOnNewlines() {
        var g = SeededGenerator(stream: 62)
        let pieces = ["a", "{\"x\": 1}", "é", "\r", " ", "\t", "\n", "\n", "\r\n", "🦊", "line"]
        for round in 0..<400 {
            var text = ""
            for _ in 0..<Int.random(in: 0...(round % 10 == 0 ? 400 : 12), using: &g) { text += pieces.randomElement(using: &g)! }
            // By bytes: as Characters, "\r\n" is one and would not split.
            let expected = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
            var lines = InputLines(text)
            var got: [String] = []
            while let (number, line) = lines.nextLine() {  // bounded: one per line of the text
                #expect(number == got.count + 1)
                got.append(String(line))
            }
            #expect(got == expected, "round \(round): \(Array(text.utf8))")
            #expect(lines.nextLine() == nil)
        }
    }
}
