@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// One section change of a batch.
public struct SectionChange: Sendable, Hashable, CustomStringConvertible {
    /// Whether the section appeared or vanished.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The section vanished: `index` is its index before the batch.
        case delete
        /// The section appeared: `index` is its index after the batch.
        case insert
    }

    /// What happened.
    public var kind: Kind
    /// Index before (delete) or after (insert) the batch.
    public var index: Int
    /// The section's value; its name is `value.description`.
    public var value: Value

    /// Makes a section change.
    public init(kind: Kind, index: Int, value: Value) {
        self.kind = kind
        self.index = index
        self.value = value
    }

    /// The section's name: its value as text, `nil` for null (the query language, ``Value/sectionName``).
    public var name: String? { value.sectionName }

    public var description: String { "\(kind.rawValue) section \(index) \(value.sectionLabel)" }
}
