/// A predicate, sort or fetch request that cannot be used: a syntax error (with its column, 1-based, in the
/// text), an unknown attribute, or a type mismatch, always naming the input at fault.
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// 1-based column in the predicate or sort text, when the error has a place.
    public var column: Int?

    /// Makes an error.
    public init(_ message: String, column: Int? = nil) {
        self.message = message
        self.column = column
    }

    public var description: String {
        if let column { return "\(message) (at column \(column))" }
        return message
    }
}
