/// Byte strings one after another in one buffer, found by index: a list of names or keys made once and read for
/// every record or row, without a `String` or an array per piece.
package struct PackedBytes: Sendable {
    private var bytes: [UInt8] = []
    /// Where each piece ends in `bytes` (it starts where the previous one ends).
    private var ends: [Int] = []

    package init() {}

    /// Appends a piece.
    package mutating func append(_ piece: some Sequence<UInt8>) {
        bytes.append(contentsOf: piece)
        ends.append(bytes.count)
    }

    /// The number of pieces.
    package var count: Int { ends.count }

    /// The bytes of all the pieces together.
    var byteCount: Int { bytes.count }

    /// Calls `body` with piece `j` (valid only during the call).
    @inline(__always)
    package func withPiece<R>(_ j: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let range = (j == 0 ? 0 : ends[j - 1])..<ends[j]
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
