@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
extension ChangeSet {
    /// The `diff` document of the CLI contract:
    /// `{"from": 3, "to": 9, "sections": [{"type": "delete", "index": 2, "name": "C"}, …],
    ///   "rows": [{"type": "move", "id": "e4", "from": [0, 3], "to": [1, 1], "changed": ["sectionName"]}, …]}`.
    /// - Parameter includeSeq: add each row change's `seq` (membership provenance; optional in JSON).
    @_spi(Engine) public func json(includeSeq: Bool = false) -> JSONValue {
        func path(_ p: IndexPath) -> JSONValue { .array([.int(Int64(p.section)), .int(Int64(p.row))]) }
        let sections: [JSONValue] = sectionChanges.map { s in
            .object([("type", .string(s.kind.rawValue)), ("index", .int(Int64(s.index))), ("name", s.name.map(JSONValue.string) ?? .null)])
        }
        let rows: [JSONValue] = rowChanges.map { r in
            var members: [(String, JSONValue)] = [("type", .string(r.kind.rawValue)), ("id", r.id.json)]
            if let from = r.from { members.append(("from", path(from))) }
            if let to = r.to { members.append(("to", path(to))) }
            if r.kind == .move || r.kind == .update { members.append(("changed", .array(r.changed.map { .string($0) }))) }
            if includeSeq { members.append(("seq", .int(Int64(r.seq)))) }
            return .object(members)
        }
        return .object([("from", .int(Int64(from))), ("to", .int(Int64(to))), ("sections", .array(sections)),
                        ("rows", .array(rows))])
    }
}
