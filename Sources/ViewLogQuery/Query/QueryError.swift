@_spi(Engine) import ViewLogModel
/// A predicate, sort or fetch request that cannot be used: a syntax error (with its column, 1-based, in the
/// text), an unknown attribute, or a type mismatch, always naming the input at fault.
public struct QueryError: ViewLogError, Hashable {
    /// What kind of error: ``ErrorCode/querySyntax``, ``ErrorCode/unknownKey``, ``ErrorCode/queryTypeMismatch``, …
    public var code: ErrorCode
    /// What is wrong.
    public var message: String
    /// 1-based column in the predicate or sort text, when the error has a place.
    public var column: Int?
    /// The entity the request is for, when the error is about one of its keys.
    public var entity: String?
    /// The key (attribute, `id`, or an unknown name) at fault, when there is one.
    public var key: String?

    /// Makes an error.
    public init(_ code: ErrorCode, _ message: String, column: Int? = nil, entity: String? = nil, key: String? = nil) {
        self.code = code
        self.message = message
        self.column = column
        self.entity = entity
        self.key = key
    }

    public var description: String {
        if let column { return "\(message) (at column \(column))" }
        return message
    }
}
