import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one object at the head or at a position.",
        discussion: """
        Exits 1 with an error when the object does not exist there.

        Examples:
          viewlog get shop Employee e1
          viewlog get shop Employee e1 --at 3 --json
          viewlog get lib Author -3
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Argument(help: "The entity.") var entity: String
    // All unrecognised words, so that a negative int id (`get lib Author -3`) is not taken for an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The object's id (an int id may be negative).", valueName: "id"))
    var ids: [String] = []
    var id: String { ids.first ?? "" }

    func validate() throws {
        if ids.isEmpty { throw ValidationError("Missing expected argument '<id>'") }
        if ids.count > 1 { throw ValidationError("Unexpected argument '\(ids[1])'") }
    }
    @Option(help: "The position (default: the head).") var at: UInt64?
    @OptionGroup var format: JSONFlag

    func run() throws {
        try Self.run(store: storeArgument.store, entity: entity, id: id, at: at, json: format.json)
    }

    /// The command on plain values: `run()`, and `viewlog get` parsed by ``PlainInvocation``.
    static func run(store path: String, entity entityName: String, id: String, at: UInt64?, json: Bool) throws {
        let store = try StoreArgument.open(path, readOnly: true)
        let position = try store.checkedPosition(at)
        if json {
            Output.standard.line(try Documents.object(store, entity: entityName, id: id, at: position).text)
        } else {
            let (entity, objectID, values) = try Documents.lookUp(store, entity: entityName, id: id, at: position)
            Output.standard.line("\(entity.name) \(objectID.displayText) at \(position)")
            let rows = entity.valueNames.map { name in [name, (values[name] ?? .null).displayText] }
            for line in TextTable(rows: rows, indent: "  ").lines { Output.standard.line(line) }
        }
    }
}
