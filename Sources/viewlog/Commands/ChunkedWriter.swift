@_spi(Engine) import ViewLog
import ViewLogDocuments

/// Commits numbered input transactions either in one LMDB write (all or nothing, up to
/// ``Limits/singleWriteChangesMax`` changes and ``Limits/singleWriteInputBytesMax`` bytes), or — with
/// `--chunked` — in writes of about ``Limits/chunkChangesMax`` changes, reporting on a failure exactly which
/// seqs were committed and which input line failed.
struct ChunkedWriter {
    let store: LogStore
    let chunked: Bool
    /// What the command does: "appended" or "imported".
    let verb: String
    /// Changes per write when chunked.
    var chunkChanges = Limits.chunkChangesMax

    /// Refuses an input too big for one write when not chunked.
    func checkSize(changes: Int, bytes: Int) throws {
        guard !chunked else { return }
        try AppendInOneWrite.checkSize(changes: changes, bytes: bytes, verb: verb)
    }

    /// Commits `items` (each a line number and what to write) with `write`, which appends one group, and
    /// tells `committed` the seqs of each group as soon as it is durable (so they are printed even when a later
    /// chunk fails).
    /// - Returns: the seqs committed.
    @discardableResult
    func commit<Item>(_ items: [(line: Int, item: Item, changes: Int)],
                      write: ([Item]) throws(StoreError) -> [UInt64],
                      committed report: ([UInt64]) -> Void = { _ in }) throws -> [UInt64] {
        guard chunked else {
            do {
                let seqs = try write(items.map(\.item))
                report(seqs)
                return seqs
            } catch {
                throw CLIError(describe(error, lines: items.map(\.line), committed: []))
            }
        }
        var committed: [UInt64] = []
        var start = 0
        let total = items.count
        while start < total {
            var end = start, changes = 0
            while end < total, end == start || changes + items[end].changes <= chunkChanges {
                changes += items[end].changes
                end += 1
            }
            do {
                let seqs = try write(items[start..<end].map(\.item))
                committed += seqs
                report(seqs)
            } catch {
                throw CLIError(describe(error, lines: Array(items[start..<end].map(\.line)), committed: committed))
            }
            start = end
            Output.progress("\(verb) \(start)/\(total) transactions")
        }
        Output.progressDone()
        return committed
    }

    /// A store error with the input line at fault and, when chunked, what was committed before it.
    func describe(_ error: StoreError, lines: [Int], committed: [UInt64]) -> String {
        let message = AppendInOneWrite.describe(error, lines: lines)
        if !chunked { return message + "; nothing \(verb)" }
        if let first = committed.first, let last = committed.last {
            let chunkLine = lines.first ?? 0
            return message + "; seqs \(first)…\(last) (the input before line \(chunkLine)) were committed, nothing from line \(chunkLine) on"
        }
        return message + "; nothing \(verb)"
    }
}
