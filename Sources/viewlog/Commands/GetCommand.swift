import ArgumentParser
@_spi(Engine) import ViewLog

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
        let store = try storeArgument.open(readOnly: true)
        let position = try store.checkedPosition(at)
        let schema = try store.schema(at: position)
        let entity = try schema.entity(named: self.entity)
        guard let objectID = ObjectID(text: id, type: entity.idType) else {
            throw CLIError("id '\(id)' is not an integer (\(entity.name) ids are integers)")
        }
        let key = ObjectKey(entity: entity.name, id: objectID)
        guard let values = try store.object(key, at: position) else {
            throw StoreError.objectNotFound(key, position: position)
        }
        if format.json {
            Output.standard.line(JSONValue.object([
                ("position", .int(Int64(position))), ("entity", .string(entity.name)), ("id", objectID.json),
                ("values", entity.stateJSON(values)),
            ]).text)
        } else {
            Output.standard.line("\(entity.name) \(objectID.displayText) at \(position)")
            let rows = entity.attributes.map { a in [a.name, (values[a.name] ?? .null).displayText] }
            for line in TextTable(rows: rows, indent: "  ").lines { Output.standard.line(line) }
        }
    }
}
