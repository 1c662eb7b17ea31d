import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

/// Which view: a named view of the schema, or `--entity` with its parts.
struct ViewOptions: ParsableArguments {
    @Argument(help: "A named view of the schema (see 'viewlog views').") var view: String?
    @Option(help: "The entity (instead of a named view).") var entity: String?
    @Option(name: .customLong("where"), help: "A predicate, e.g. \"height > 170 AND name BEGINSWITH[c] 'a'\".") var predicate: String?
    @Option(help: "Sort descriptors, e.g. \"sectionName, height desc, name\".") var sort: String?
    @Option(help: "The attribute that groups rows into sections.") var section: String?
    @Option(help: "Key paths to show and follow without filtering or sorting by them, beside a named view's own include, e.g. \"department.name, manager.name\".")
    var include: String?
    @Option(parsing: .unconditional, help: "At most this many rows.") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip this many rows first.") var offset: Int?
    @Option(name: .customLong("var"), help: "A value for $NAME in the predicate: NAME=VALUE (a JSON literal or text).")
    var variables: [String] = []

    func validate() throws {
        if let problem = selection.problem() { throw ValidationError(problem) }
    }

    /// The options as the view they select (the CLI and the server share what follows from it).
    var selection: ViewSelection {
        ViewSelection(view: view, entity: entity, predicate: predicate, sort: sort, section: section, include: include,
                      limit: limit, offset: offset, variables: variables)
    }
}

extension MaterializedView {
    /// Prints the `query` document as one line (``writeJSON(into:every:_:)``), in pieces: a view of many rows is
    /// never held whole in memory.
    func printJSON() throws {
        try Output.standard.line(streaming: { bytes, drain in
            var w = JSONWriter()
            swap(&w.bytes, &bytes)
            defer { swap(&w.bytes, &bytes) }
            try writeJSON(into: &w, every: Output.standard.pieceBytes) { drain(&$0.bytes) }
        })
    }

    /// Aligned text: one table whose columns line up across sections; when sectioned, a heading per section
    /// (`name (n rows)`) above its rows, each section with the column header.
    func textLines() throws -> [String] {
        let ids = controller.fetchedObjects
        if ids.isEmpty { return ["(no rows at position \(controller.position))"] }
        // The entity's attributes, then the key paths the view shows (`department.name`), each a column.
        // Derived attributes are among the entity's (its values), other key paths after them.
        let paths = controller.keyPaths
        func pathType(_ path: String) -> AttributeType { controller.pathValues(of: ids[0])?[path]?.type ?? .string }
        let columns = entity.valueNames.map { ($0, entity.attribute(named: $0)?.type ?? pathType($0)) }
            + paths.filter { entity.derived[$0] == nil }.map { ($0, pathType($0)) }
        let rightAligned = Set(columns.indices.filter { Value.alignsRight(columns[$0].1) }.map { $0 + 1 })
            .union(entity.idType == .int ? [0] : [])
        let cells = try ids.map { id -> [String] in
            var v = try rowValues(of: id)
            if !paths.isEmpty, let p = controller.pathValues(of: id) { v.merge(p) { own, _ in own } }
            return [id.displayText] + columns.map { (v[$0.0] ?? .null).displayText }
        }
        let indent = controller.isSectioned ? "  " : ""
        let table = TextTable(header: ["id"] + columns.map(\.0), rows: cells, indent: indent, rightAligned: rightAligned)
        let widths = table.widths
        guard controller.isSectioned else { return table.lines(widths: widths) }
        var out: [String] = []
        var row = 0
        for info in controller.sections {
            let n = info.numberOfObjects
            out.append("\(info.name.map { Value.string($0).displayText } ?? "(null)") (\(n) \(n == 1 ? "row" : "rows"))")
            let section = TextTable(header: table.header, rows: Array(cells[row..<(row + n)]), indent: indent,
                                    rightAligned: rightAligned)
            out += section.lines(widths: widths)
            row += n
        }
        return out
    }
}
