@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// What moving a position from one seq to another did to one object.
public struct ObjectDelta: Sendable, Hashable {
    /// The object.
    public var key: ObjectKey
    /// Its full values at the start position; `nil` when it did not exist there.
    public var before: ObjectValues?
    /// Its full values at the end position; `nil` when it does not exist there.
    public var after: ObjectValues?
    /// The transaction of the move that touched it last in the direction of the move: when moving forwards,
    /// the highest seq that changed it; when moving backwards, the lowest seq undone.
    public var seq: UInt64

    /// Makes an object delta.
    public init(key: ObjectKey, before: ObjectValues?, after: ObjectValues?, seq: UInt64) {
        self.key = key
        self.before = before
        self.after = after
        self.seq = seq
    }
}

/// A move of a position (`from` → `to`, either direction) reduced to the objects it touched, each once,
/// with its state at both ends. This is all a results controller needs to compute one batch.
public struct Delta: Sendable, Hashable {
    /// The start position.
    public var from: UInt64
    /// The end position.
    public var to: UInt64
    /// Touched objects, each once, in key order.
    public var objects: [ObjectDelta]
    /// The schema at `to` when it differs from the schema at `from`.
    public var schemaChange: Schema?
    /// The migrations the move passes (DESIGN §13), `nil` when none: then ``objects`` are named as at `to` — keys,
    /// and `before` values carried to `to`'s names (``MigrationCarry``) — and hold only objects whose values differ
    /// (a rename alone is no change).
    @_spi(Engine) public var carry: MigrationCarry?

    /// Makes a delta.
    public init(from: UInt64, to: UInt64, objects: [ObjectDelta], schemaChange: Schema? = nil) {
        self.from = from
        self.to = to
        self.objects = objects
        self.schemaChange = schemaChange
    }

    /// Makes a delta across the migrations of `carry`.
    @_spi(Engine) public init(from: UInt64, to: UInt64, objects: [ObjectDelta], schemaChange: Schema?, carry: MigrationCarry?) {
        self.init(from: from, to: to, objects: objects, schemaChange: schemaChange)
        self.carry = carry
    }
}
