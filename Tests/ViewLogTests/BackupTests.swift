import Foundation
import Testing
import TestSupport
@_spi(Engine) @_spi(Replication) @testable import ViewLog

/// DESIGN §13, "Backup": a copy consistent at one position while others append, a store like any other.
@Suite("Backup")
struct BackupTests {
    static func insert(_ id: String, height: Int64 = 170) -> TransactionRequest {
        TransactionRequest(author: "test", changes: [
            .insert(entity: "Employee", id: .string(id), values: ["name": .string(id), "height": .int(height)]),
        ])
    }

    /// Every encoded entry of `store`, 1…head.
    static func entries(_ store: LogStore) throws -> [[UInt8]] {
        let head = try store.head
        guard head > 0 else { return [] }
        return try (1...head).map { try #require(try store.encodedTransaction(at: $0)) }
    }

    /// The entries of the directory that holds `path` whose names start with its last component: the store, its
    /// copy, and any temporary sibling left behind.
    static func siblings(of path: String) throws -> [String] {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(name) }.sorted()
    }

    @Test func aBackupIsAStoreAtThePositionItNames() throws {
        let store = try makeStore()
        try store.append((1...20).map { Self.insert("e\($0)", height: Int64(150 + $0)) })
        try store.append([.update(entity: "Employee", id: .string("e3"), values: ["height": .int(199)])], author: "t")
        let path = store.path + "-backup"
        let backup = try store.backup(to: path)
        #expect(backup.path == path && backup.position == 21)
        var st = stat()
        #expect(stat(path + "/data.mdb", &st) == 0 && backup.bytes == Int(st.st_size) && backup.bytes > 0)
        #expect(st.st_mode & 0o777 == 0o600)  // the store's own file mode
        #expect(try Self.siblings(of: path) == [URL(fileURLWithPath: path).lastPathComponent])  // no temporary left

        // Appends after the backup are not in it.
        try store.append([Self.insert("late")])
        let copy = try LogStore.open(at: path)
        #expect(try copy.head == 21)
        #expect(try copy.verify().isOK)
        #expect(try Self.entries(copy) == Array(try Self.entries(store).prefix(21)))
        #expect(try copy.object(employee("e3"))?["height"] == .int(199))
        #expect(try copy.object(employee("late")) == nil)
        #expect(try copy.schema == store.schema)
        // A store like any other: it takes appends of its own.
        #expect(try copy.append([Self.insert("own")]).map(\.seq) == [22])
        #expect(try copy.verify().isOK)
    }

    @Test func aCompactBackupLeavesOutFreePages() throws {
        let store = try makeStore()
        // Updates of big values free pages that a compact copy leaves out.
        try store.append([Self.insert("e1")])
        let big = String(repeating: "x", count: 20_000)
        for i in 0..<20 {
            try store.append([.update(entity: "Employee", id: .string("e1"), values: ["name": .string(big + String(i))])], author: "t")
        }
        let plain = try store.backup(to: store.path + "-plain")
        let compact = try store.backup(to: store.path + "-compact", compact: true)
        #expect(plain.position == 21 && compact.position == 21)
        #expect(compact.bytes < plain.bytes)
        let copy = try LogStore.open(at: compact.path)
        #expect(try copy.verify().isOK)
        #expect(try Self.entries(copy) == Self.entries(store))
    }

    /// Backups taken while another thread appends: each holds exactly the transactions up to its position, and
    /// verifies.
    @Test func backupsWhileAnotherWriterAppendsAreEachConsistent() async throws {
        let store = try makeStore()
        try store.append([Self.insert("e0")])
        let stop = Locked(false), ended = Locked(false)
        let writer = Task.detached {
            defer { ended.withLock { $0 = true } }
            var n = 1
            while !stop.withLock({ $0 }) {  // ended by the test, however it ends
                try store.append([Self.insert("e\(n)"), Self.insert("f\(n)")])
                n += 1
            }
        }
        var backups: [StoreBackup] = []
        do {
            defer { stop.withLock { $0 = true } }
            for i in 0..<4 {
                // Each backup waits for a new head first, so that appends happen between and during the copies.
                let before = try store.head
                while try store.head == before, !ended.withLock({ $0 }) { await Task.yield() }
                backups.append(try store.backup(to: store.path + "-\(i)", compact: i % 2 == 1))
            }
        }
        try await writer.value
        let all = try Self.entries(store)
        #expect(backups.map(\.position) == backups.map(\.position).sorted())
        for backup in backups {
            let copy = try LogStore.open(at: backup.path)
            #expect(try copy.head == backup.position)
            #expect(try copy.verify().isOK, "\(backup)")
            #expect(try Self.entries(copy) == Array(all.prefix(Int(backup.position))))
        }
    }

    @Test func anExistingDestinationIsRefusedAndLeftAsItWas() throws {
        let store = try makeStore()
        try store.append([Self.insert("e1")])
        let empty = store.path + "-empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        #expect(throws: StoreError.alreadyExists(path: empty)) { try store.backup(to: empty) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
        let file = store.path + "-file"
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: StoreError.alreadyExists(path: file)) { try store.backup(to: file) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a store")
        // The store itself.
        #expect(throws: StoreError.alreadyExists(path: store.path)) { try store.backup(to: store.path) }
        #expect(try Self.siblings(of: empty) == [URL(fileURLWithPath: empty).lastPathComponent])
        // A destination whose parent does not exist: an error, nothing made.
        let orphan = store.path + "-missing/copy"
        #expect(throws: StoreError.self) { try store.backup(to: orphan) }
        #expect(!FileManager.default.fileExists(atPath: store.path + "-missing"))
    }

    /// A destination written with a trailing slash is the same directory (as `init` treats it).
    @Test func aTrailingSlashNamesTheSameDestination() throws {
        let store = try makeStore()
        try store.append([Self.insert("e1"), Self.insert("e2")])
        let copyPath = store.path + "-slash"
        let backup = try store.backup(to: copyPath + "/")
        #expect(backup.path == copyPath && backup.position == 2)
        #expect(try LogStore.open(at: copyPath).verify().isOK)
        #expect(throws: StoreError.alreadyExists(path: copyPath + "/")) { try store.backup(to: copyPath + "/") }
    }
}
