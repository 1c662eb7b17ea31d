/// The names of a list of attributes (sorted by name, as ``EntityDescription/attributes``) as UTF-8 in one
/// buffer, made once for a scan: a record's names are matched against these bytes, so no attribute's `String` is
/// retained or copied per name of every record read.
struct AttributeNames: Sendable {
    private let bytes: [UInt8]
    /// Where each name ends in `bytes` (it starts where the previous one ends).
    private let ends: [Int]

    init(_ attributes: [Attribute]) {
        var bytes: [UInt8] = [], ends: [Int] = []
        for a in attributes {
            bytes.append(contentsOf: a.name.utf8)
            ends.append(bytes.count)
        }
        self.bytes = bytes
        self.ends = ends
    }

    var count: Int { ends.count }

    /// The byte order of `raw` against the name of attribute `j`: negative, zero or positive.
    @inline(__always)
    func compare(_ raw: UnsafeRawBufferPointer, toNameOf j: Int) -> Int {
        let range = (j == 0 ? 0 : ends[j - 1])..<ends[j]
        return bytes.withUnsafeBytes { ByteReader.compare(raw, UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
