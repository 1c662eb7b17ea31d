/// Every bound of ViewLog in one place. Units and qualifiers come last in each name.
@_spi(Engine) public enum Limits {
    /// Longest entity, attribute or view name.
    public static let nameBytesMax = 128
    /// Most relationships a key path follows (`manager.department.floor` follows 2), the last one counted too.
    public static let keyPathRelationshipsMax = 3
    /// Longest string value (one attribute) in the log.
    public static let stringBytesMax = 16 * 1024 * 1024
    /// Longest input line of `append` / `import` (one transaction as JSON).
    public static let lineBytesMax = 16 * 1024 * 1024
    /// Longest string id. An object's LMDB key is its entity name, a separator, a tag and its id, and LMDB
    /// keys are at most 511 bytes: 128 + 2 + 256 leaves room.
    public static let idBytesMax = 256
    /// Most changes one all-or-nothing `append` or `import` commits in a single LMDB write: what one write
    /// holds comfortably (LMDB keeps a write's dirty pages in memory and refuses past ~512 MiB of them).
    /// Larger inputs are refused unless committed in chunks (`--chunked`).
    public static let singleWriteChangesMax = 1_000_000
    /// Most input bytes of one all-or-nothing `append` or `import`.
    public static let singleWriteInputBytesMax = 256 * 1024 * 1024
    /// Changes per write when an input is committed in chunks.
    public static let chunkChangesMax = 100_000
    /// Most changes in one transaction.
    public static let transactionChangesMax = 1_000_000
    /// Most transactions one revert lists (DESIGN §14).
    public static let revertsMax = 1024
    /// Most attributes of one entity.
    public static let attributesMax = 1024
    /// Most members of one to-many relationship's set (DESIGN §10).
    public static let setMembersMax = 1_000_000
    /// Deepest nesting of a JSON document ViewLog reads.
    public static let jsonDepthMax = 64
    /// Deepest nesting of a predicate.
    public static let predicateDepthMax = 256
    /// Longest predicate text.
    public static let predicateBytesMax = 64 * 1024
    /// Longest regular expression of a `MATCHES` comparison; longer patterns are refused (see ``ViewPredicate``).
    public static let regexPatternBytesMax = 1024
    /// Most instructions of a `MATCHES` pattern's compiled program (its NFA; counted repetitions are copied, so
    /// `(a{100}){100}` needs 10,000): a larger pattern is refused. Matching costs at most this many steps per
    /// scalar of the string.
    public static let regexProgramSizeMax = 4096
    /// An `IN {…}` list longer than this is looked up in a hash set rather than scanned.
    public static let inListScanCountMax = 16
    /// Longest schema (its canonical JSON text), for `init` and `schema --update` alike: a schema change is
    /// logged as one string of the log format.
    public static let schemaBytesMax = 4 * 1024 * 1024
    /// Largest encoded transaction in the log.
    public static let transactionBytesMax = 256 * 1024 * 1024
    /// Initial LMDB map size; the map grows by itself when full.
    public static let mapSizeBytesInitial = 64 * 1024 * 1024
    /// Largest LMDB map size the store grows to.
    public static let mapSizeBytesMax = 1 << 40
    /// Most transactions a context's position may lie below the head for a controller of a stored view to be made
    /// from the view's rows at the head (``Context/makeStoredWindowController(view:_:transactionsMax:following:)``,
    /// ``Context/makeStoredPathRangeController(view:_:transactionsMax:)``), and for a following controller to refill
    /// its window from them before a move: every transaction in between is read, and every object it touched held,
    /// in one read transaction. The bound keeps that work and memory independent of the log's length; farther below
    /// the head the caller builds the view whole instead.
    public static let storedViewCatchUpTransactionsMax: UInt64 = 65_536
    /// Most ``LogStore/headUpdates()`` streams of one store open at once in a process (they share one monitor;
    /// each holds only its newest head). One more ends at once with an error.
    public static let headSubscribersMax = 65_536
    /// Longest key of a stored view's row (its view's prefix and its row key, ``StoredView``): LMDB's key limit. A
    /// view with a longer row (a sort or section value of a long string) is no longer stored; it builds in memory.
    public static let storedViewKeyBytesMax = 511
    /// Most named LMDB databases in a store environment.
    public static let namedDatabasesMax: UInt32 = 8
}
