import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
import LMDB

/// The features record (`schema/log-format.md`, "Features"): a store names the features it uses, so that code that
/// does not know one refuses the store as written by a newer ViewLog, never as corrupt.
@Suite struct StoreFeaturesTests {
    static let flat = #"{"entities": {"Department": {"id": "int", "attributes": {"name": {"type": "string"}}}}}"#

    static func recorded(_ store: LogStore) throws -> Set<String> {
        try store.perform(read: true) { txn in try store.recordedFeatures(in: txn, format: try store.format(in: txn)) }
    }

    @Test func theFirstSchemaWithARelationshipRecordsTheFeature() throws {
        let withRelationships = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                                    options: StoreOptions(durable: false))
        #expect(try Self.recorded(withRelationships) == ["relationships"])

        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: Self.flat), options: StoreOptions(durable: false))
        #expect(try Self.recorded(store).isEmpty, "a store without relationships records no feature")
        try store.updateSchema(try Schema(jsonText: """
            {"entities": {"Department": {"id": "int", "attributes": {"name": {"type": "string"}},
              "relationships": {"parent": {"to": "Department", "optional": true}}}}}
            """), author: "admin")
        #expect(try Self.recorded(store) == ["relationships"])
        #expect(try store.verify().isOK, "verify knows the record")
    }

    @Test func aVersion1StoreRecordsItsFeaturesAndKeepsThemThroughTheUpgrade() throws {
        try V1StoreTests.withCopy { path in
            let store = try LogStore.open(at: path)
            var schema = try store.schema
            let employee = try schema.entity(named: "Employee")
            schema.entities["Employee"] = EntityDescription(name: "Employee", idType: employee.idType, attributes: employee.attributes
                + [Attribute(relationship: "mentor", to: "Employee", targetIDType: employee.idType, isOptional: true)])
            try store.updateSchema(schema, author: "admin")
            #expect(try store.format == 1 && Self.recorded(store) == ["relationships"])
            #expect(try store.upgrade() == 1)
            #expect(try Self.recorded(store) == ["relationships"] && store.verify().isOK)
        }
    }

    @Test func aFeatureThisCodeDoesNotKnowIsUnsupportedNotCorrupt() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                        options: StoreOptions(durable: false))
        // What a newer ViewLog would write: a schema this code cannot load, and the feature it uses.
        let newer = #"{"entities": {"Item": {"id": "int", "attributes": {"price": {"type": "decimal"}}}}}"#
        try store.perform { txn in
            try store.putMeta(txn, MetaKey.schema(at: 0), Array(newer.utf8), format: LogStore.formatVersion)
            try store.putMeta(txn, MetaKey.features, Array(#"["decimals", "relationships"]"#.utf8), format: LogStore.formatVersion)
        }
        let unsupported = StoreError.unsupportedFeatures(path: store.path, features: ["decimals"])
        // This process opened the store before the newer code wrote: its next read of the schema says so.
        #expect(throws: unsupported) { try store.schema }
        #expect(throws: unsupported) { try LogStore.open(at: store.path) }
        #expect(unsupported.code == .unsupportedFeature)
        #expect(unsupported.description == "\(store.path) uses a feature this viewlog does not support: decimals (written by a newer viewlog)")
    }

    @Test func aDamagedFeaturesRecordIsCorrupt() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: Self.flat), options: StoreOptions(durable: false))
        try store.perform { txn in
            try store.putMeta(txn, MetaKey.features, Array(#"{"relationships": true}"#.utf8), format: LogStore.formatVersion)
        }
        #expect(throws: StoreError.corrupt(seq: nil, reason: "the features record in the metadata is not a JSON array")) {
            try LogStore.open(at: store.path)
        }
    }
}
