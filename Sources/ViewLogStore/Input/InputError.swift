@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Bad input to `append` or `import`: the 1-based line it is on and a message that names the problem and the
/// entity, attribute or id at fault, e.g. `line 3: insert Employee "e1": attribute 'height' is int, got a string`.
public struct InputError: ViewLogError, Hashable {
    /// What kind of error: ``ErrorCode/malformedJSON``, ``ErrorCode/unknownEntity``, ``ErrorCode/typeMismatch``,
    /// ``ErrorCode/invalidInput`` (JSON that is not of the shape of a change), …
    public var code: ErrorCode
    /// The 1-based line of the input; `0` when the input is not line-based (a command-line change, or a
    /// property of the input as a whole such as having no lines).
    public var line: Int
    /// What is wrong, without the line number.
    public var message: String

    /// Makes an error.
    public init(_ code: ErrorCode = .invalidInput, line: Int, message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    /// The error of an input without any transaction (only blank lines, or nothing).
    public static let noLines = InputError(.noLines, line: 0, message: "the input has no transactions (no non-blank lines)")

    /// `line N: message`, or just the message when ``line`` is 0.
    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}
