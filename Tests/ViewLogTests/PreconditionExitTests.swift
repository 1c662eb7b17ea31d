import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

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

    /// The slab finds a row's place in its id index and refuses a stored id in one probe: a second insert of
    /// an id still traps, also after the first row moved (kept its slot, new key) or after other rows came and went.
    @Test func insertingAStoredIDTraps() async {
        await #expect(processExitsWith: .failure) {
            let (rows, order) = rowsAfterMovesAndRemovals()
            rows.insert(order.key(id: .int(42), keyValues: [.int(3)]))
        }
    }

    /// A bulk load indexes its rows once at the end; an id staged twice still traps there.
    @Test func loadingAnIDTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            let order = RowOrder(ascending: [true], isSectioned: false, keyPaths: ["k"], types: [.int], idType: .int)
            OrderedRows(order: order).load([order.key(id: .int(7), keyValues: [.int(1)]), order.key(id: .int(8), keyValues: [.int(2)]),
                                            order.key(id: .int(7), keyValues: [.int(3)])])
        }
    }

    /// The same load without the repeated id passes.
    @Test func loadingDistinctIDsDoesNotTrap() {
        let order = RowOrder(ascending: [true], isSectioned: false, keyPaths: ["k"], types: [.int], idType: .int)
        let rows = OrderedRows(order: order)
        rows.load([order.key(id: .int(7), keyValues: [.int(1)]), order.key(id: .int(8), keyValues: [.int(2)]),
                   order.key(id: .int(9), keyValues: [.int(3)])])
        rows.checkInvariants()
        #expect(rows.count == 3)
    }

    /// The same sequence with a fresh id passes (so the trap above comes from the duplicate, not from the setup).
    @Test func insertingAFreshIDAfterAMoveDoesNotTrap() {
        let (rows, order) = rowsAfterMovesAndRemovals()
        rows.insert(order.key(id: .int(1042), keyValues: [.int(3)]))
        rows.checkInvariants()
        #expect(rows.count == 50 - 17 + 1)
        #expect(rows.rank(of: .int(42)) == rows.count - 1)
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

/// 50 rows in small nodes, every third removed, and row 42 moved to the end (it keeps its slot).
func rowsAfterMovesAndRemovals() -> (OrderedRows, RowOrder) {
    let order = RowOrder(ascending: [true], isSectioned: false, keyPaths: ["k"], types: [.int], idType: .int)
    let rows = OrderedRows(order: order, capacity: 4)
    for i in 0..<50 { rows.insert(order.key(id: .int(Int64(i)), keyValues: [.int(Int64(i % 7))])) }
    for i in stride(from: 1, to: 50, by: 3) { rows.remove(.int(Int64(i))) }
    let moved = order.key(id: .int(42), keyValues: [.int(99)])
    if let slot = rows.slot(of: .int(42)) {
        _ = rows.detach(slot: slot)
        moved.bytes.withUnsafeBytes { _ = rows.reattach(slot: slot, $0, idStart: moved.idStart) }
    }
    return (rows, order)
}
