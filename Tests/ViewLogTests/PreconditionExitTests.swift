import Testing
@_spi(Engine) @testable import ViewLog

/// Programmer errors trap (preconditions stay on in release builds); these exit tests prove they do.
@Suite("Preconditions")
struct PreconditionExitTests {
    @Test func aNegativeOffsetTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = FetchRequest(entity: "Employee", offset: -1)
        }
    }

    @Test func applyingADeltaFromAnotherPositionTraps() async {
        await #expect(processExitsWith: .failure) {
            let entity = EntityDescription(name: "E", idType: .int, attributes: [Attribute(name: "x", type: .int)])
            let controller = try ResultsController(fetchRequest: FetchRequest(entity: "E"), entity: entity,
                                                   objects: [(ObjectID, ObjectValues)](), position: 3)
            controller.apply(Delta(from: 1, to: 2, objects: []))
        }
    }

    @Test func writingInAReadOnlyTransactionTraps() async {
        await #expect(processExitsWith: .failure) {
            try putInAReadTransaction()
        }
    }
}

/// Synchronous, as LMDB transactions must be (no await while one is open).
func putInAReadTransaction() throws {
    let store = try LogStore.create(at: newStorePath(), schema: try employeesSchema(), options: StoreOptions(durable: false))
    try store.environment.read { txn in try txn.put(store.metaDB, key: [1], value: [1]) }
}
