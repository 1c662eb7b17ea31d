@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The attribute names of the last object record a scan read (as bytes, in the record's order) and what each one
/// is to the scan: the index of the wanted attribute it names, or none. Rows of one entity nearly always carry the
/// same names, so ``ByteReader/objectValues(into:names:shape:)`` compares each name of the next row with the one
/// at the same place here (one masked word for a name of up to 8 bytes) instead of matching it against the wanted
/// names, checking its UTF-8 and checking it follows the previous name: this shape's names passed those checks when
/// it was recorded, in this order, so an identical sequence passes them too.
package struct RecordShape {
    /// Records with more names than this are not cached (every row is read the general way).
    static let namesMax = 64

    /// One name of the shape.
    struct Name {
        /// The name's ``ByteReader/leadingWord(_:available:)``: a name of up to 8 bytes compares in one word.
        var word: UInt64
        /// Its length in bytes.
        var length: Int
        /// The wanted attribute it is (an index into the scan's ``AttributeNames``), or -1.
        var match: Int
    }

    /// The names, in the record's order.
    private var entries: [Name] = []
    /// Their bytes (for names longer than a word).
    private var names = PackedBytes()
    /// The wanted attributes the shape lacks: read as `null`.
    private(set) var absent: [Int] = []

    /// The number of names; 0 until a record is recorded (a record with no names is not worth caching).
    package var count: Int { entries.count }

    /// Name `i`.
    @inline(__always)
    func name(_ i: Int) -> Name { entries[i] }

    /// Whether `raw` is name `i`'s bytes exactly; `available` bytes are readable from `raw`'s start (at least its
    /// count): with 8 of them a short name compares as one masked load.
    @inline(__always)
    func isName(_ name: Name, at i: Int, _ raw: UnsafeRawBufferPointer, available: Int) -> Bool {
        guard raw.count == name.length else { return false }
        if name.length <= 8 { return ByteReader.leadingWord(raw, available: available) == name.word }
        return names.withPiece(i) { ByteReader.compare(raw, $0) == 0 }
    }

    /// Records the names of the object values at the start of `values` (already read and checked in full by the
    /// general reader), matched against `wanted`. A record with more than ``namesMax`` names leaves the shape
    /// empty.
    mutating func record(_ values: UnsafeRawBufferPointer, wanted: AttributeNames) {
        self = RecordShape()
        var r = ByteReader(values)
        guard let n = try? r.count("attribute count", limit: Limits.attributesMax, bytesEach: EncodedSize.namedValueMin),
              n > 0, n <= Self.namesMax else { return }
        var shape = RecordShape()
        var present = [Bool](repeating: false, count: wanted.count)
        var j = 0
        for _ in 0..<n {
            guard let (raw, _) = try? r.rawName("attribute name"), (try? r.skipValue()) != nil else { return }
            // The names are strictly increasing, as the wanted ones are: one merge walk matches them.
            while j < wanted.count, wanted.compare(raw, toNameOf: j) > 0 { j += 1 }
            var match = -1
            if j < wanted.count, wanted.compare(raw, toNameOf: j) == 0 {
                match = j
                present[j] = true
            }
            shape.entries.append(Name(word: ByteReader.leadingWord(raw, available: 0), length: raw.count, match: match))
            shape.names.append(UnsafeRawBufferPointer(raw))
        }
        shape.absent = present.indices.filter { !present[$0] }
        self = shape
    }
}
