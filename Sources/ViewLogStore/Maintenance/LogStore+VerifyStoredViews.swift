@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// The problems of the stored views (`views`, ``StoredView``) at the head: each built view's rows must be exactly
    /// the view recomputed from the objects (same keys, in the same order, each entry intact), and no entries may
    /// belong to a view the schema does not store. At most `limit` problems.
    func storedViewProblems(limit: Int) throws(StoreError) -> [String] {
        guard let db = viewsDB else { return [] }
        return try perform(read: true) { txn -> [String] in
            // A schema that does not read is a problem the log's check has named already.
            guard let schema = try? self.schema(at: UInt64.max, in: txn) else { return [] }
            var problems: [String] = []
            func problem(_ s: String) { if problems.count < limit { problems.append(s) } }
            let views = self.storedViews(of: schema)
            let known = Set(views.map(\.prefix))
            for prefix in try self.storedViewPrefixes(in: txn) where !known.contains(prefix) {
                let name = prefix.withUnsafeBytes { StoredView.name(in: $0) } ?? "?"
                problem("stored views: entries of '\(name)', which the schema does not store")
            }
            // Views kept at another head are stale and never read: the next write builds them again.
            let head = try self.head(in: txn)
            if try StoredView.maintainedHead(in: db, txn, key: StoredView.aggregatesMaintainedKey) == head {
                for prefix in try self.aggregateStatePrefixes(in: txn, kept: views) {
                    let name = prefix.withUnsafeBytes { StoredView.name(in: $0) } ?? "?"
                    problem("stored views: aggregate state of '\(name)', which the schema does not keep")
                }
            }
            for view in views where try StoredView.maintainedHead(in: db, txn, key: view.maintainedKey) == head {
                switch try view.state(in: db, txn) {
                case .stored: break
                case .unstored:
                    if try txn.scan(db, prefix: view.prefix, { _ in .next }) > 1 {
                        problem("stored view '\(view.name)': rows under a view marked as not stored")
                    }
                    continue
                case .unbuilt:
                    if try txn.scan(db, prefix: view.prefix, { _ in .stop }) > 0 {
                        problem("stored view '\(view.name)': its header does not match its definition")
                    }
                    continue  // not built yet (a store opened read-only since older code made it)
                }
                if let aggregates = view.aggregates {
                    // The aggregates' state: exactly the one recomputed from the members, entry for entry.
                    let expected = (try? aggregates.recomputedEntries(store: self, in: txn)) ?? []
                    var next = 0
                    try txn.scan(db, prefix: aggregates.prefix) { e in
                        if next < expected.count, e.key.elementsEqual(expected[next].key) {
                            if !e.value.elementsEqual(expected[next].value) {
                                problem("stored view '\(view.name)': an aggregate state entry differs from the one its members make")
                            }
                            next += 1
                        } else {
                            problem("stored view '\(view.name)': the aggregate state differs from the one its members make")
                            return .stop
                        }
                        return problems.count < limit ? .next : .stop
                    }
                    if next < expected.count, problems.count < limit {
                        problem("stored view '\(view.name)': the aggregate state lacks \(expected.count - next) entries its members make")
                    }
                }
                // Rows that do not decode are problems the objects' check has named already.
                var expected = ByteWriter(capacity: 4096)
                var rows: [Range<Int>] = []
                try? self.storedViewRowKeys(of: view, into: &expected, rows: &rows, in: txn)
                try expected.withBytes(0..<expected.count) { all in
                    func bytes(_ r: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: all[r]) }
                    rows.sort { compareBytes(bytes($0), bytes($1)) < 0 }
                    func describe(_ key: UnsafeRawBufferPointer) -> String {
                        let row = UnsafeRawBufferPointer(rebasing: key[view.prefix.count...])
                        return view.idStart(row).map { "\(view.entity.name) \(KeyEncoding.id(row, at: $0).json.text)" } ?? "a key that does not decode"
                    }
                    var next = 0
                    try txn.scan(db, from: .after(view.prefix)) { e in
                        guard e.key.hasPrefix(view.prefix) else { return .stop }
                        if !StoredView.isIntactRow(key: e.key, value: e.value) {
                            problem("stored view '\(view.name)': the row of \(describe(e.key)) does not match its checksum")
                        }
                        // Merge the stored keys with the expected ones, both in order.
                        while next < rows.count, compareBytes(bytes(rows[next]), e.key) < 0 {
                            problem("stored view '\(view.name)': no row for \(describe(bytes(rows[next]))), which the view has")
                            next += 1
                        }
                        if next < rows.count, compareBytes(bytes(rows[next]), e.key) == 0 {
                            next += 1
                        } else {
                            problem("stored view '\(view.name)': a row for \(describe(e.key)) that the view does not have there")
                        }
                        return problems.count < limit ? .next : .stop
                    }
                    while next < rows.count, problems.count < limit {
                        problem("stored view '\(view.name)': no row for \(describe(bytes(rows[next]))), which the view has")
                        next += 1
                    }
                }
            }
            return problems
        }
    }
}
