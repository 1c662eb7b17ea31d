import ArgumentParser
import ViewLog

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a store (a directory) with a schema.",
        discussion: """
        Example:
          viewlog init shop --schema schema/employees.json
        """
    )

    @Argument(help: "The store directory to create; it must not exist.")
    var store: String

    @Option(help: "The schema file (JSON, see schema/schema.schema.json).")
    var schema: String

    func run() throws {
        let text = try readTextFile(schema)
        let parsed: Schema
        do { parsed = try Schema(jsonText: text) } catch { throw CLIError("\(schema): \(error)") }
        let store = try LogStore.create(at: self.store, schema: parsed)
        Output.standard.line("created \(store.path) with \(parsed.entities.count) entities and \(parsed.views.count) views")
    }
}

/// Reads a whole UTF-8 text file, or fails naming it.
func readTextFile(_ path: String) throws -> String {
    guard let file = fopen(path, "rb") else { throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
        if n < chunk.count { break }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw CLIError("\(path) is not UTF-8 text") }
    return text
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
