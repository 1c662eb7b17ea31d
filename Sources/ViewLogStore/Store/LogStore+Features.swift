@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// The features a store uses (`schema/log-format.md`, "Features"): names in the `features` metadata record, each
/// written by the write that first stores a schema using it, so that code which does not know a feature refuses the
/// store as made by a newer ViewLog (``StoreError/unsupportedFeatures(path:features:)``) instead of calling what it
/// cannot read corrupt.
extension LogStore {
    /// The features this code reads and writes.
    public static let featuresKnown: Set<String> = ["relationships", "migrations", "toMany"]

    /// The features a store holding `schema` uses: `toMany` for a to-many relationship, whose sets older code cannot
    /// read.
    static func features(of schema: Schema) -> Set<String> {
        var used: Set<String> = []
        for e in schema.entities.values {
            for a in e.relationships { used.formUnion(a.isToMany ? ["relationships", "toMany"] : ["relationships"]) }
        }
        return used
    }

    /// The features the metadata in `txn` records (none without the record).
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` for a record that fails its checksum or is not a JSON array of
    ///   names.
    func recordedFeatures(in txn: LMDBTransaction, format: Int) throws -> Set<String> {
        guard let bytes = try txn.value(metaDB, for: MetaKey.features) else { return [] }
        let payload = try MetaRecord.payload(bytes, key: MetaKey.features, format: format, record: "the features record")
        guard case .array(let items)? = try? JSONValue.parse(String(decoding: payload, as: UTF8.self)) else {
            throw StoreError.corrupt(seq: nil, reason: "the features record in the metadata is not a JSON array")
        }
        var names: Set<String> = []
        for item in items {
            guard case .string(let name) = item, !name.isEmpty else {
                throw StoreError.corrupt(seq: nil, reason: "the features record in the metadata holds \(item.text), not a name")
            }
            names.insert(name)
        }
        return names
    }

    /// Refuses a store whose metadata records a feature this code does not know.
    /// - Throws: ``StoreError/unsupportedFeatures(path:features:)``.
    func checkFeatures(in txn: LMDBTransaction, format: Int) throws {
        let unknown = try recordedFeatures(in: txn, format: format).subtracting(Self.featuresKnown)
        guard unknown.isEmpty else { throw StoreError.unsupportedFeatures(path: path, features: unknown.sorted()) }
    }

    /// Adds the features `schema` uses to the metadata's record, in the write that stores `schema`.
    func recordFeatures(of schema: Schema, in txn: LMDBTransaction, format: Int, migration: Bool = false) throws {
        // A migration's log entry is a kind older code calls corrupt: it must refuse the store as newer instead.
        let used = Self.features(of: schema).union(migration ? ["migrations"] : [])
        guard !used.isEmpty else { return }
        let recorded = try recordedFeatures(in: txn, format: format)
        guard !used.isSubset(of: recorded) else { return }
        let text = JSONValue.array(recorded.union(used).sorted().map { .string($0) }).text
        try putMeta(txn, MetaKey.features, Array(text.utf8), format: format)
    }
}
