import ArgumentParser
import ViewLog

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one object at the head or at a position.",
        discussion: """
        Exits 1 with an error when the object does not exist there.
        Examples:
          viewlog get shop Employee e1
          viewlog get shop Employee e1 --at 3 --json
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "The object's id.") var id: String
    @Option(help: "The position (default: the head).") var at: UInt64?
    @OptionGroup var format: JSONFlag

    func run() throws {
        let store = try storeArgument.open()
        let position = try store.checkedPosition(at)
        let schema = try store.schema(at: position)
        let entity = try schema.entity(named: self.entity)
        guard let objectID = ObjectID(text: id, type: entity.idType) else {
            throw CLIError("\(entity.name) ids are \(entity.idType.rawValue)s, got '\(id)'")
        }
        let key = ObjectKey(entity: entity.name, id: objectID)
        guard let values = try store.object(key, at: position) else {
            throw StoreError.objectNotFound(key, position: position)
        }
        if format.json {
            Output.standard.line(JSONValue.object([
                ("position", .int(Int64(position))), ("entity", .string(entity.name)), ("id", objectID.json),
                ("values", entity.json(values)),
            ]).text)
        } else {
            Output.standard.line("\(entity.name) \(objectID) at \(position)")
            let rows = entity.attributes.compactMap { a in values[a.name].map { [a.name, $0.displayText] } }
            for line in TextTable(rows: rows, indent: "  ").lines { Output.standard.line(line) }
        }
    }
}
