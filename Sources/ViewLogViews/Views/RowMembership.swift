@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery

/// How a view decides which objects are its rows: a compiled predicate, or (for tests of the view engine) any
/// closure.
package enum RowMembership {
    case predicate(CompiledPredicate)
    case closure((ObjectValues, ObjectID) -> Bool)

    package func evaluate(_ values: ObjectValues, _ id: ObjectID) -> Bool {
        switch self {
        case .predicate(let p): return p.evaluate(values, id: id)
        case .closure(let f): return f(values, id)
        }
    }
}
