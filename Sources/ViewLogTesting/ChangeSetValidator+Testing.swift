#if canImport(Testing)
import Testing
import ViewLog

extension ChangeSetValidator {
    /// Checks `changeSet` as the batch taking `before` to `after` (batch and sequential forms) and, when it is
    /// not valid, reports every problem as **one** Swift Testing issue at the caller's line and stops the test
    /// (like `#require`). Outside a Swift Testing test (XCTest, a command-line check) it throws
    /// ``ChangeSetValidationError`` instead.
    public static func check(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let problems = validate(changeSet, from: before, to: after) + validateSequential(changeSet, from: before, to: after)
        guard !problems.isEmpty else { return }
        let error = ChangeSetValidationError(problems: problems)
        guard Test.current != nil else { throw error }
        try #require(Bool(false), "invalid change set:\n\(changeSet)\n\(error)", sourceLocation: sourceLocation)
    }

    /// Like ``check(_:from:to:sourceLocation:)`` but lets the test go on: records one issue at the caller's line
    /// when `changeSet` is not valid, and returns whether it was.
    @discardableResult
    public static func expectValid(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                                   sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let problems = validate(changeSet, from: before, to: after) + validateSequential(changeSet, from: before, to: after)
        guard !problems.isEmpty else { return true }
        Issue.record("invalid change set:\n\(changeSet)\n\(ChangeSetValidationError(problems: problems))",
                     sourceLocation: sourceLocation)
        return false
    }
}
#endif
