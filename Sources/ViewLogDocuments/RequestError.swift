import ViewLog

/// An error of a request to the CLI or the server — an option or parameter that is wrong before the library is
/// asked anything (an unknown view, a `--var` without `=`, an id of the wrong type). Its ``description`` is the
/// CLI's `error:` line (without `error: `) and the server's `message`; its ``code`` is the server's `code`.
package struct RequestError: ViewLogError {
    package let code: ErrorCode
    package let description: String

    package init(_ code: ErrorCode, _ description: String) {
        self.code = code
        self.description = description
    }
}

extension ErrorCode {
    /// A view name the schema does not have.
    package static let unknownView = ErrorCode(rawValue: "request.unknown-view")
    /// An option or parameter that is missing, malformed or out of range.
    package static let invalidParameter = ErrorCode(rawValue: "request.invalid-parameter")
    /// An input larger than one all-or-nothing write holds.
    package static let inputTooLarge = ErrorCode(rawValue: "request.too-large")
}
