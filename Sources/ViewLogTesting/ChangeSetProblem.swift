import ViewLog

/// One way a change set fails to take a snapshot to the next, or breaks a reporting rule of the change-set rules:
/// which change (its index in `ChangeSet/rowChanges`, `ChangeSet/sectionChanges` or the sequential
/// steps), and what was expected against what was found.
public struct ChangeSetProblem: Error, Sendable, Hashable, CustomStringConvertible {
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
}

/// All problems of a change set, thrown by `ChangeSetValidator/check(_:from:to:)`.
public struct ChangeSetValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in the order they were found.
    public var problems: [ChangeSetProblem]

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
