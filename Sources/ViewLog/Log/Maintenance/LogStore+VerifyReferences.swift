import LMDB

extension LogStore {
    /// The problems of the relationships index (`refs`) and of the integrity of relationships at the head: every entry
    /// must be intact and name a relationship value an object has, every non-null relationship value must have its
    /// entry and name an existing object. At most `limit` problems.
    func referenceProblems(limit: Int) throws(StoreError) -> [String] {
        try perform(read: true) { txn -> [String] in
            // A schema that does not read is a problem the log's check has named already.
            guard let schema = try? self.schema(at: UInt64.max, in: txn), schema.hasRelationships || self.refsDB != nil else { return [] }
            var problems: [String] = []
            func problem(_ s: String) { if problems.count < limit { problems.append(s) } }
            var expected = Set<[UInt8]>()
            for name in schema.entityNames {
                let relationships = schema.entities[name]!.relationships
                guard !relationships.isEmpty else { continue }
                // Rows that do not decode are problems the objects' check has named already.
                for (id, values) in (try? self.headObjects(of: name, in: txn)) ?? [] {
                    for a in relationships {
                        guard let v = values[a.name], let target = ObjectID(v) else { continue }
                        let targetKey = ObjectKey(entity: a.relationship!.target, id: target)
                        expected.insert(ReferenceKey.key(target: targetKey, source: ObjectKey(entity: name, id: id), relationship: a.name))
                        if try txn.value(self.objectsDB, for: ObjectRecordCodec.key(targetKey)) == nil {
                            problem("object \(name) \(id.json.text): relationship '\(a.name)' names \(targetKey.entity) \(target.json.text), which does not exist")
                        }
                    }
                }
            }
            guard let refs = self.refsDB else {
                if !expected.isEmpty { problem("the relationships index (refs) is missing: open the store for writing once to add it") }
                return problems
            }
            try txn.scan(refs) { e in
                let key = Array(e.key)
                if !ReferenceKey.isIntact(key: e.key, value: e.value) {
                    problem("relationships index (refs): an entry does not match its checksum")
                } else if expected.remove(key) == nil {
                    let what = (try? ReferenceKey.decode(e.key)).map { "\($0.source.entity) \($0.source.id.json.text) names \($0.target.entity) \($0.target.id.json.text) through '\($0.relationship)'" }
                        ?? "an entry that does not decode"
                    problem("relationships index (refs): \(what), but the object does not")
                }
                return .next
            }
            for key in expected.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let e = key.withUnsafeBytes { try? ReferenceKey.decode($0) }
                problem("relationships index (refs): no entry for \(e.map { "\($0.source.entity) \($0.source.id.json.text) naming \($0.target.entity) \($0.target.id.json.text) through '\($0.relationship)'" } ?? "a relationship")")
            }
            return problems
        }
    }
}
