import Foundation
import Testing
import TestSupport
@_spi(Replication) import ViewLog
@testable import ViewLogReplication

/// A schema, scratch directories that are removed however a test ends, and helpers.
final class Scratch: @unchecked Sendable {
    let path: String

    init() throws {
        path = TestScratch.newPath("repl")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func store(_ name: String) -> String { path + "/" + name }
}

enum ReplicationFixtures {
    static let schemaJSON = """
        {
          "entities": {
            "Employee": {
              "id": "string",
              "attributes": {
                "name":        { "type": "string" },
                "height":      { "type": "int", "optional": true },
                "sectionName": { "type": "string", "default": "" }
              }
            }
          },
          "views": {
            "tall": { "entity": "Employee", "where": "height > 170", "sort": "sectionName, height desc, name", "section": "sectionName" }
          }
        }
        """

    static let schema: Schema = {
        do { return try Schema(jsonText: schemaJSON) } catch { preconditionFailure("fixture schema: \(error)") }
    }()

    static func insert(_ id: String, height: Int64, section: String = "A") -> TransactionRequest {
        TransactionRequest(author: "test", changes: [.insert(entity: "Employee", id: .string(id),
            values: ["name": .string(id), "height": .int(height), "sectionName": .string(section)])])
    }

    static func update(_ id: String, height: Int64) -> TransactionRequest {
        TransactionRequest(author: "test", changes: [.update(entity: "Employee", id: .string(id), values: ["height": .int(height)])])
    }

    /// Every encoded entry of a store, 1…head.
    static func entries(_ store: LogStore) throws -> [[UInt8]] {
        let head = try store.head
        return try (1...max(head, 1)).prefix(Int(head)).map { seq in
            try #require(try store.encodedTransaction(at: seq))
        }
    }
}
