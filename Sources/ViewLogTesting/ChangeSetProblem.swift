import Foundation  // LocalizedError
import ViewLog

/// One way a change set fails to take a snapshot to the next, or breaks a reporting rule of the change-set rules:
/// which change (its index in `ChangeSet/rowChanges`, `ChangeSet/sectionChanges` or the sequential
/// steps), and what was expected against what was found.
public struct ChangeSetProblem: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The rule that is broken, e.g. `"row delete"`, `"result"`, `"move rule"`.
    public var rule: String
    /// What is wrong, naming the change, the index path, the expected and the actual row.
    public var message: String

    /// Makes a problem.
    public init(rule: String, message: String) {
        self.rule = rule
        self.message = message
    }

    public var description: String { "\(rule): \(message)" }
    /// The ``description``: what `localizedDescription` shows.
    public var errorDescription: String? { description }
}

/// All problems of a change set, thrown by ``ChangeSetValidator/check(_:from:to:fileID:filePath:line:column:)``
/// outside a Swift Testing test.
public struct ChangeSetValidationError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in the order they were found.
    public var problems: [ChangeSetProblem]

    /// Makes an error of `problems`.
    public init(problems: [ChangeSetProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
    /// The ``description``: what `localizedDescription` shows.
    public var errorDescription: String? { description }
}
