@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
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
            var expected: [[UInt8]: [UInt8]] = [:]  // key -> value
            for name in schema.entityNames {
                let relationships = schema.entities[name]!.relationships
                guard !relationships.isEmpty else { continue }
                // Rows that do not decode are problems the objects' check has named already.
                for (id, values) in (try? self.headObjects(of: name, in: txn)) ?? [] {
                    for a in relationships {
                        for target in values[a.name]?.memberIDs ?? [] {
                            let targetKey = ObjectKey(entity: a.relationship!.target, id: target)
                            let key = ReferenceKey.key(target: targetKey, source: ObjectKey(entity: name, id: id), relationship: a.name)
                            expected[key] = ReferenceKey.value(key: key, id: id)
                            if try txn.value(self.objectsDB, for: ObjectRecordCodec.key(targetKey)) == nil {
                                problem("object \(name) \(id.json.text): relationship '\(a.name)' names \(targetKey.entity) \(target.json.text), which does not exist")
                            }
                        }
                    }
                }
            }
            guard let refs = self.refsDB else {
                if !expected.isEmpty { problem("the relationships index (refs) is missing: open the store for writing once to add it") }
                return problems
            }
            func describe(_ e: ReferenceKey.Entry) -> String {
                let target = e.target.map { "\($0.entity) \($0.id.json.text)" } ?? "an object"
                return "\(e.source.entity) \(e.source.id.json.text) naming \(target) through '\(e.relationship)'"
            }
            try txn.scan(refs) { e in
                let key = Array(e.key)
                guard let entry = try? ReferenceKey.decode(key: e.key, value: e.value) else {
                    problem("relationships index (refs): an entry does not match its checksum or does not decode")
                    return .next
                }
                if let value = expected.removeValue(forKey: key) {
                    if !value.elementsEqual(e.value) { problem("relationships index (refs): the entry of \(describe(entry)) names another id") }
                } else {
                    problem("relationships index (refs): an entry of \(describe(entry)), but the object does not name it")
                }
                return .next
            }
            for (key, value) in expected.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let e = key.withUnsafeBytes { k in value.withUnsafeBytes { v in try? ReferenceKey.decode(key: k, value: v) } }
                problem("relationships index (refs): no entry for \(e.map(describe) ?? "a relationship")")
            }
            return problems
        }
    }
}
