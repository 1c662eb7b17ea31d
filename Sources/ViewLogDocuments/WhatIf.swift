@_spi(Engine) import ViewLog

/// What-if input (DESIGN §14): `query --with FILE`, `diff --from P --with FILE`, and the server's `POST /v1/query` and
/// `POST /v1/diff` with FILE as the body — append input read against the schema at the position and staged there
/// (``MaterializedView/whatIf(store:selection:at:with:from:)``), its errors named by line, nothing appended.
package enum WhatIf {
    /// The view at `position` as it would be after appending `text` there, and the change set from `from` (default:
    /// `position`).
    /// - Parameter name: what the errors call the input (`--with plan.jsonl`, `the request body`).
    /// - Throws: ``AppendInOneWrite/Refused`` (with the library's code) naming the input, its line and what is wrong.
    package static func view(_ store: LogStore, selection: ViewSelection, at position: UInt64, text: String, named name: String,
                             from: UInt64? = nil) throws
        -> (view: MaterializedView, changes: ChangeSet, before: [ObjectID: ObjectValues]) {
        let schema = try store.schema(at: position)
        let entries: [AppendInput.Entry]
        do { entries = try AppendInput.parse(text, schema: schema) } catch {
            throw AppendInOneWrite.Refused(code: error.code, description: "\(name): \(error)")
        }
        let requests = entries.map { TransactionRequest(author: "viewlog", changes: $0.requests) }
        do {
            return try MaterializedView.whatIf(store: store, selection: selection, at: position, with: requests, from: from)
        } catch let refused as MaterializedView.WhatIfError {
            let line = entries[refused.request].line
            let reason: String
            switch refused.error {
            case let .invalidStagedChange(key, operation, why):
                reason = "\(operation) of \(key.entity) \(key.id.json.text): \(why)"
            case let .invalidStagedChangeByPredicate(entity, operation, predicate, why):
                reason = "\(operation) of \(entity) where \(predicate): \(why)"
            default:
                reason = refused.error.description
            }
            throw AppendInOneWrite.Refused(code: refused.error.code, description: "\(name): line \(line): \(reason)")
        }
    }
}
