import FuzzShared
@_spi(Engine) import ViewLog

// A predicate text → parse → compile for each entity → evaluate against the fixture objects. Parsing and
// compiling may throw; nothing may trap, and `MATCHES` may not run for long (libFuzzer's -timeout catches a
// hang). A parsed predicate's canonical text must parse again.
func fuzzPredicate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let predicate = try? ViewPredicate(text) else { return 0 }
    _ = predicate.variableNames
    precondition((try? ViewPredicate(predicate.expression.description)) != nil,
                 "the canonical text of a parsed predicate does not parse")
    for (name, entity) in FuzzShared.schema.entities {
        guard let compiled = try? predicate.compiled(for: entity, variables: FuzzShared.variables) else { continue }
        if name == "Employee" {
            for (id, values) in FuzzShared.employees { _ = compiled.evaluate(values, id: id) }
        } else {
            _ = compiled.evaluate(["label": .string("x")], id: .int(7))
            _ = compiled.evaluate([:], id: .int(-1))
        }
    }
    // Key paths, quantifiers and aggregates: resolved against a schema with relationships, compiled against the
    // view's entity (one attribute per path), evaluated with every path null and with values.
    for entity in ["Employee", "Department"] {
        let request = FetchRequest(entity: entity, predicate: predicate, variables: FuzzShared.variables)
        guard let (viewEntity, _, _) = try? FuzzShared.graphSchema.viewEntity(of: request),
              let compiled = try? predicate.compiled(for: viewEntity, variables: FuzzShared.variables) else { continue }
        _ = compiled.evaluate([:], id: .int(1))
        var values: ObjectValues = [:]
        for a in viewEntity.attributes { values[a.name] = a.type == .int ? .int(3) : a.type == .bool ? .bool(true) : .string("x") }
        _ = compiled.evaluate(values, id: .string("e1"))
    }
    return 0
}

/// The entry point SwiftPM links as `main` (see ``runFuzzer(argc:argv:_:)``).
@_cdecl("FuzzPredicate_main")
public func fuzzpredicateMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in fuzzPredicate(data, size) }
}
