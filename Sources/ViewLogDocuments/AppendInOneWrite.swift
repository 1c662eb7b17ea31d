@_spi(Engine) import ViewLog

/// Appends append input (JSON lines, DESIGN §7) in one LMDB write: all lines or none. `append` of the CLI on a
/// local store and `POST /v1/append` of the server both append this way, and fail with the same messages.
package enum AppendInOneWrite {
    /// Lines read per batch: enough that a batch's fixed costs vanish, few enough that the batch's requests stay
    /// in cache and their memory is reused by the next.
    package static let linesPerBatch = 4096

    /// Appends all of `text`, reading it a batch of lines at a time into the write (a bulk load never holds the
    /// whole input's requests). Lines are checked in order: the first bad one is named, whether its JSON or its
    /// change is wrong, and nothing is appended. A line's own `"author"` wins over `author`.
    /// - Returns: the new seqs, in order.
    /// - Throws: an error whose description ends in `; nothing appended` (its code the library's), a
    ///   ``RequestError`` with ``ErrorCode/inputTooLarge`` for an input bigger than one write holds.
    package static func append(_ store: LogStore, text: String, author: String) throws -> [UInt64] {
        struct TooManyChanges: Error {}
        let schema = try store.schema
        var reader = AppendInput.Reader(text, schema: schema)
        var lines: [Int] = []
        var changes = 0
        do {
            return try store.append(batches: { () throws -> [TransactionRequest]? in
                guard let entries = try reader.next(upTo: linesPerBatch) else { return nil }
                var batch: [TransactionRequest] = []
                batch.reserveCapacity(entries.count)
                for entry in entries {
                    lines.append(entry.line)
                    changes += entry.requests.count
                    batch.append(TransactionRequest(author: entry.author ?? author, changes: entry.requests))
                }
                guard changes <= Limits.singleWriteChangesMax else { throw TooManyChanges() }
                return batch
            }, rewind: {
                // The write runs again from the first line after the store's map grew.
                reader = AppendInput.Reader(text, schema: schema)
                lines.removeAll(keepingCapacity: true)
                changes = 0
            })
        } catch let error as InputError {
            throw Refused(code: error.code, description: "\(error); nothing appended")
        } catch is TooManyChanges {
            // Count the rest, to say how big the input is (a bad line in it is named, as any bad line is).
            do {
                while let entries = try reader.next(upTo: linesPerBatch) {  // bounded by the text
                    changes += entries.reduce(0) { $0 + $1.requests.count }
                }
            } catch {
                throw Refused(code: error.code, description: "\(error); nothing appended")
            }
            throw tooLarge(changes: changes, bytes: text.utf8.count, verb: "appended")
        } catch let error as StoreError {
            throw Refused(code: error.code, description: describe(error, lines: lines) + "; nothing appended")
        }
    }

    /// The error of an input of `changes` changes in `bytes` bytes when that is more than one all-or-nothing
    /// write holds, or nil.
    package static func checkSize(changes: Int, bytes: Int, verb: String) throws {
        if changes > Limits.singleWriteChangesMax || bytes > Limits.singleWriteInputBytesMax {
            throw tooLarge(changes: changes, bytes: bytes, verb: verb)
        }
    }

    static func tooLarge(changes: Int, bytes: Int, verb: String) -> RequestError {
        RequestError(.inputTooLarge, "the input has \(changes) changes in \(bytes) bytes, more than one all-or-nothing write holds "
            + "(\(Limits.singleWriteChangesMax) changes, \(Limits.singleWriteInputBytesMax) bytes); "
            + "use --chunked to commit it in chunks; nothing \(verb)")
    }

    /// A store error with the input line at fault (`lines[t]` is the line of the write's transaction `t`).
    package static func describe(_ error: StoreError, lines: [Int]) -> String {
        switch error {
        case let .invalidChange(t, c, reason) where t < lines.count:
            return "line \(lines[t]): \(c > 0 ? "change \(c + 1): " : "")\(reason)"
        case let .emptyTransaction(t) where t < lines.count:
            return "line \(lines[t]): a transaction with no changes"
        default:
            return error.description
        }
    }

    /// A refused append: the library error's code, and the message with the line at fault.
    package struct Refused: ViewLogError {
        package let code: ErrorCode
        package let description: String
    }
}
