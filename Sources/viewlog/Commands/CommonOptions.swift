import ArgumentParser
import ViewLog

/// The store argument every command takes first.
struct StoreArgument: ParsableArguments {
    @Argument(help: "The store directory.")
    var store: String

    /// Opens the store, or fails with one clear line. `readOnly` for commands that only read: they take no
    /// writer lock and work on a store they cannot write (README, "Access").
    func open(readOnly: Bool = false) throws -> LogStore {
        try Self.open(store, readOnly: readOnly)
    }

    /// Opens the store at `path` (``open(readOnly:)``).
    static func open(_ path: String, readOnly: Bool = false) throws -> LogStore {
        try LogStore.open(at: path, options: StoreOptions(readOnly: readOnly))
    }
}

/// `--json`: one JSON document per line instead of aligned text.
struct JSONFlag: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON document per line.")
    var json = false
}
