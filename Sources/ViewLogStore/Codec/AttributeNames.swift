@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The names of a list of attributes (sorted by name, as ``EntityDescription/attributes``) as UTF-8 in one
/// buffer, made once for a scan: a record's names are matched against these bytes, so no attribute's `String` is
/// retained or copied per name of every record read.
package struct AttributeNames: Sendable {
    private var names = PackedBytes()
    /// Each attribute's ``Attribute/absentValue``.
    private var absent: [Value] = []

    package init(_ attributes: [Attribute]) {
        for a in attributes { names.append(a.name.utf8) }
        absent = attributes.map(\.absentValue)
    }

    /// What a record without attribute `j` reads (``Attribute/absentValue``).
    func absentValue(of j: Int) -> Value { absent[j] }

    package var count: Int { names.count }

    /// The byte order of `raw` against the name of attribute `j`: negative, zero or positive.
    @inline(__always)
    func compare(_ raw: UnsafeRawBufferPointer, toNameOf j: Int) -> Int {
        names.withPiece(j) { ByteReader.compare(raw, $0) }
    }
}
