// LocalizedError is FoundationEssentials' (the engine already imports it, for IndexPath and Date): a user's
// `error.localizedDescription` (Foundation) says what went wrong, not "The operation could not be completed".
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stable, matchable name of what went wrong, shared by every error ViewLog throws.
///
/// Each error type (``StoreError``, ``SchemaError``, ``QueryError``, ``InputError``, ``CodecError``, …) keeps
/// its own cases and fields — the context it knows: the seq, the input line, the column, the entity, the
/// attribute — and names its kind with one of these codes, so that a caller can tell errors apart without
/// knowing which type carries them or reading their text:
///
/// ```swift
/// do {
///     try store.append(requests)
/// } catch let error as any ViewLogError where error.code == .conflict {
///     // merge and retry
/// }
/// ```
///
/// A code's ``rawValue`` (`"store.conflict"`) never changes once released; the article <doc:ErrorCodes> lists
/// every code. Other modules add their own codes in their own namespace (`ViewLogReplication` uses
/// `replication.…`).
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as text: `domain.name`, lower case, words joined by `-`.
    public let rawValue: String

    /// Makes a code. A code is `domain.name`; the domain is the module's or the error type's area.
    public init(rawValue: String) {
        precondition(rawValue.contains("."), "an error code is domain.name, not '\(rawValue)'")
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// An error thrown by ViewLog: one of its typed errors, with a matchable ``code``.
///
/// Every public error type of ViewLog conforms. Its `description` is the one-line message the CLI prints after
/// `error: `; its ``code`` says what kind of error it is, whatever type carries it. It is a `LocalizedError`
/// whose `errorDescription` is that `description`, so `error.localizedDescription` says the same.
public protocol ViewLogError: LocalizedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    var code: ErrorCode { get }
}

extension ViewLogError {
    /// The error's `description`: what `localizedDescription` shows.
    public var errorDescription: String? { description }
}

// MARK: - The store

extension ErrorCode {
    /// The directory holds no ViewLog store, or its store was removed.
    public static let notAStore = ErrorCode(rawValue: "store.not-a-store")
    /// `create` found a store or other files there.
    public static let alreadyExists = ErrorCode(rawValue: "store.already-exists")
    /// The store was written in a newer log format.
    public static let unsupportedFormat = ErrorCode(rawValue: "store.unsupported-format")
    /// The store uses a feature this build does not know (written by a newer ViewLog).
    public static let unsupportedFeature = ErrorCode(rawValue: "store.unsupported-feature")
    /// An appended change was refused (named by transaction and change index).
    public static let invalidChange = ErrorCode(rawValue: "store.invalid-change")
    /// A context refused to stage a change.
    public static let invalidStagedChange = ErrorCode(rawValue: "store.invalid-staged-change")
    /// A transaction without changes.
    public static let emptyTransaction = ErrorCode(rawValue: "store.empty-transaction")
    /// An append without transactions.
    public static let emptyInput = ErrorCode(rawValue: "store.empty-input")
    /// A position past the head.
    public static let positionPastHead = ErrorCode(rawValue: "store.position-past-head")
    /// A position below the store's horizon: the log before it was compacted.
    public static let compacted = ErrorCode(rawValue: "log.compacted")
    /// The named view a watch follows was removed by a migration.
    public static let viewRemoved = ErrorCode(rawValue: "view.removed")
    /// A context with unsaved changes moved over a migration (they name the schema before it).
    public static let acrossMigration = ErrorCode(rawValue: "context.across-migration")
    /// A compaction refused because another process is compacting the store.
    public static let compactionUnderWay = ErrorCode(rawValue: "log.compaction-under-way")
    /// No such object at the position.
    public static let objectNotFound = ErrorCode(rawValue: "store.object-not-found")
    /// Damaged bytes in a log entry, object row or metadata record.
    public static let corrupt = ErrorCode(rawValue: "store.corrupt")
    /// A context's save conflicted with later transactions (merge policy `.error`).
    public static let conflict = ErrorCode(rawValue: "store.conflict")
    /// The storage engine failed: disk full, permissions, I/O, map full.
    public static let storage = ErrorCode(rawValue: "store.storage")
    /// A local-only append to a replica of a stream.
    public static let replicaAppend = ErrorCode(rawValue: "store.replica")
    /// A revert, undo or redo refused: a later transaction changed what it would set back.
    public static let revertConflict = ErrorCode(rawValue: "revert.conflict")
    /// A revert, undo or redo that cannot be made: no such transaction, a schema change, nothing to undo or redo, or integrity.
    public static let cannotRevert = ErrorCode(rawValue: "revert.refused")
}

// MARK: - Schemas

extension ErrorCode {
    /// A schema file that is not JSON or not of the schema's shape.
    public static let schemaMalformed = ErrorCode(rawValue: "schema.malformed")
    /// A rule of the schema format was broken.
    public static let schemaInvalid = ErrorCode(rawValue: "schema.invalid")
    /// An entity the schema does not have.
    public static let unknownEntity = ErrorCode(rawValue: "schema.unknown-entity")
    /// An attribute the entity does not have.
    public static let unknownAttribute = ErrorCode(rawValue: "schema.unknown-attribute")
    /// An attribute type that is not `string int double bool date`.
    public static let unknownType = ErrorCode(rawValue: "schema.unknown-type")
    /// An entity or attribute name that is not an identifier.
    public static let invalidName = ErrorCode(rawValue: "schema.invalid-name")
    /// Two attributes with one name.
    public static let duplicateAttribute = ErrorCode(rawValue: "schema.duplicate-attribute")
    /// A default value that does not fit its attribute.
    public static let invalidDefault = ErrorCode(rawValue: "schema.invalid-default")
    /// A named view that cannot be made.
    public static let invalidView = ErrorCode(rawValue: "schema.invalid-view")
    /// A schema update that is not additive.
    public static let breakingChange = ErrorCode(rawValue: "schema.breaking-change")
    /// A migration file that cannot be read: not an array of steps, an unknown step, a name the schema lacks.
    public static let invalidMigration = ErrorCode(rawValue: "migration.invalid")
    /// A migration refused: it would break a view, a relationship or integrity, or a value does not convert.
    public static let migrationRefused = ErrorCode(rawValue: "migration.refused")
}

// MARK: - Values of objects

extension ErrorCode {
    /// A value given for a derived attribute (DESIGN §10), which is computed, never given.
    public static let derivedAttributeGiven = ErrorCode(rawValue: "value.derived-attribute")
    /// A value of another type than its attribute's.
    public static let typeMismatch = ErrorCode(rawValue: "value.type-mismatch")
    /// A relationship's value is not an id of its target entity.
    public static let relationshipTypeMismatch = ErrorCode(rawValue: "value.relationship-type-mismatch")
    /// A set given for a to-many relationship that names a member twice (DESIGN §10).
    public static let duplicateMember = ErrorCode(rawValue: "value.duplicate-member")
    /// `null` for an attribute that is required.
    public static let nullForRequired = ErrorCode(rawValue: "value.null-for-required")
    /// A date that is not ISO 8601 with milliseconds or out of range.
    public static let malformedDate = ErrorCode(rawValue: "value.malformed-date")
    /// Required attributes without a default that an insert does not give.
    public static let missingRequired = ErrorCode(rawValue: "value.missing-required")
    /// A string longer than `Limits.stringBytesMax`.
    public static let stringTooLong = ErrorCode(rawValue: "value.string-too-long")
    /// An id of the wrong type, or too long.
    public static let invalidID = ErrorCode(rawValue: "value.invalid-id")
}

// MARK: - Typed models

extension ErrorCode {
    /// The Swift type is of another entity.
    public static let entityMismatch = ErrorCode(rawValue: "coding.entity-mismatch")
    /// The id's Swift type does not fit the entity's id type.
    public static let idMismatch = ErrorCode(rawValue: "coding.id-mismatch")
    /// A property that is not an attribute of the entity.
    public static let unknownProperty = ErrorCode(rawValue: "coding.unknown-property")
    /// A value of another type than its property's.
    public static let propertyTypeMismatch = ErrorCode(rawValue: "coding.type-mismatch")
    /// `null` for a property that is not optional.
    public static let nullValue = ErrorCode(rawValue: "coding.null-value")
    /// No value for a property that is not optional.
    public static let missingAttribute = ErrorCode(rawValue: "coding.missing-attribute")
    /// A value out of the range of its property's type.
    public static let valueOutOfRange = ErrorCode(rawValue: "coding.value-out-of-range")
    /// A property that is an array, a dictionary or a nested type.
    public static let unsupportedContainer = ErrorCode(rawValue: "coding.unsupported-container")
}

// MARK: - Queries

extension ErrorCode {
    /// A predicate or sort text that does not parse (the error has the column).
    public static let querySyntax = ErrorCode(rawValue: "query.syntax")
    /// A predicate, sort or section key that is not an attribute (or `id`) of the entity.
    public static let unknownKey = ErrorCode(rawValue: "query.unknown-key")
    /// Values of types that cannot be compared, or an operator that needs another type.
    public static let queryTypeMismatch = ErrorCode(rawValue: "query.type-mismatch")
    /// A variable without a value.
    public static let missingVariable = ErrorCode(rawValue: "query.missing-variable")
    /// An operand an operator does not take: a list where none goes, a key where a value must be.
    public static let invalidOperand = ErrorCode(rawValue: "query.invalid-operand")
    /// A value that cannot be in a predicate (a double that is not finite).
    public static let invalidLiteral = ErrorCode(rawValue: "query.invalid-literal")
    /// A regular expression that does not parse.
    public static let invalidRegex = ErrorCode(rawValue: "query.invalid-regex")
    /// A regular expression of a kind MATCHES refuses (backreferences, lookaround, too large a program).
    public static let refusedRegex = ErrorCode(rawValue: "query.refused-regex")
    /// A predicate longer or deeper than the limits.
    public static let queryTooComplex = ErrorCode(rawValue: "query.too-complex")
    /// A fetch request given to a controller of another entity.
    public static let requestEntityMismatch = ErrorCode(rawValue: "query.entity-mismatch")
}

// MARK: - Input of append and import

extension ErrorCode {
    /// An input without any transaction.
    public static let noLines = ErrorCode(rawValue: "input.no-lines")
    /// A line that is not valid JSON.
    public static let malformedJSON = ErrorCode(rawValue: "input.malformed-json")
    /// A line longer than `Limits.lineBytesMax`.
    public static let lineTooLong = ErrorCode(rawValue: "input.line-too-long")
    /// A line that is JSON but not of the shape of a change or a transaction.
    public static let invalidInput = ErrorCode(rawValue: "input.invalid")
    /// An operation other than insert, update or delete.
    public static let unknownOperation = ErrorCode(rawValue: "input.unknown-operation")
    /// More changes in one transaction than `Limits.transactionChangesMax`.
    public static let tooManyChanges = ErrorCode(rawValue: "input.too-many-changes")
}

// MARK: - The binary format

extension ErrorCode {
    /// Bytes that end inside a field.
    public static let truncated = ErrorCode(rawValue: "codec.truncated")
    /// A field holding a value the format does not allow.
    public static let invalidField = ErrorCode(rawValue: "codec.invalid-field")
    /// A length or count over its limit.
    public static let tooLarge = ErrorCode(rawValue: "codec.too-large")
    /// An entry without the magic bytes.
    public static let badMagic = ErrorCode(rawValue: "codec.bad-magic")
    /// An entry of a format version this build does not read.
    public static let unsupportedVersion = ErrorCode(rawValue: "codec.unsupported-version")
    /// An entry whose length field does not match its bytes.
    public static let lengthMismatch = ErrorCode(rawValue: "codec.length-mismatch")
    /// A checksum that does not match the bytes.
    public static let checksumMismatch = ErrorCode(rawValue: "codec.checksum-mismatch")
    /// An intact entry under another seq than its own.
    public static let unexpectedSeq = ErrorCode(rawValue: "codec.unexpected-seq")
    /// More bytes after a complete value.
    public static let trailingBytes = ErrorCode(rawValue: "codec.trailing-bytes")
}
