#if canImport(Testing)
import Testing
#endif
import ViewLog

extension ChangeSetValidator {
    /// Checks `changeSet` as the batch taking `before` to `after` (batch and sequential forms). When it is not valid:
    /// inside a Swift Testing test, reports every problem as **one** issue at the caller's line and stops the test
    /// (like `#require`); anywhere else — an XCTest test, an executable, a command-line check — throws
    /// ``ChangeSetValidationError`` with every problem.
    ///
    /// Its location parameters are the standard literals, so it compiles in a file that does not import `Testing`.
    ///
    /// ```swift
    /// try ChangeSetValidator.check(changeSet, from: before, to: after)
    /// ```
    public static func check(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                             fileID: String = #fileID, filePath: String = #filePath,
                             line: Int = #line, column: Int = #column) throws {
        let problems = validate(changeSet, from: before, to: after) + validateSequential(changeSet, from: before, to: after)
        guard !problems.isEmpty else { return }
        let error = ChangeSetValidationError(problems: problems)
        #if canImport(Testing)
        if Test.current != nil {
            try #require(Bool(false), "invalid change set:\n\(changeSet)\n\(error)",
                         sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        #endif
        throw error
    }

    /// Like ``check(_:from:to:fileID:filePath:line:column:)`` but lets the test go on: inside a Swift Testing test,
    /// records one issue at the caller's line when `changeSet` is not valid. Returns whether it was valid (outside
    /// a Swift Testing test it records nothing: use the result, ``check(_:from:to:fileID:filePath:line:column:)``
    /// or ``validate(_:from:to:)``).
    @discardableResult
    public static func expectValid(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                                   fileID: String = #fileID, filePath: String = #filePath,
                                   line: Int = #line, column: Int = #column) -> Bool {
        let problems = validate(changeSet, from: before, to: after) + validateSequential(changeSet, from: before, to: after)
        guard !problems.isEmpty else { return true }
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record("invalid change set:\n\(changeSet)\n\(ChangeSetValidationError(problems: problems))",
                         sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        #endif
        return false
    }
}

#if canImport(Testing)
extension ChangeSetValidator {
    /// ``check(_:from:to:fileID:filePath:line:column:)`` at a Swift Testing `SourceLocation` you pass (a helper's
    /// caller's, say).
    @_disfavoredOverload
    public static func check(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        try check(changeSet, from: before, to: after, fileID: sourceLocation.fileID, filePath: sourceLocation.filePath,
                  line: sourceLocation.line, column: sourceLocation.column)
    }

    /// ``expectValid(_:from:to:fileID:filePath:line:column:)`` at a Swift Testing `SourceLocation` you pass.
    @_disfavoredOverload
    @discardableResult
    public static func expectValid(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                                   sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expectValid(changeSet, from: before, to: after, fileID: sourceLocation.fileID, filePath: sourceLocation.filePath,
                    line: sourceLocation.line, column: sourceLocation.column)
    }
}
#endif
