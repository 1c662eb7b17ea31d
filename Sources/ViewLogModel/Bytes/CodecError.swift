/// Why bytes of the log or the object store could not be decoded, with the byte offset of the field at fault.
///
/// Every decoder of the binary format (`schema/log-format.md`) is total: any bytes give a value or one of these
/// errors, never a trap.
public enum CodecError: ViewLogError, Hashable {
    /// The log format version this build reads and writes (the log's codec, `TransactionCodec.formatVersion`, is
    /// this one): named here, below the codec, so that the error can say it.
    package static let formatVersionRead: UInt16 = 1

    /// The bytes end inside `field`, which starts at `offset`.
    case truncated(field: String, offset: Int)
    /// `field` at `offset` holds a value the format does not allow; `reason` says which.
    case invalid(field: String, offset: Int, reason: String)
    /// A length or count in `field` at `offset` is larger than its limit (a limit of the format, or the bytes
    /// that remain). Checked before anything is allocated.
    case tooLarge(field: String, offset: Int, value: Int, limit: Int)
    /// The entry does not start with the magic bytes `VLTX`: it is not a transaction entry.
    case badMagic
    /// The entry was written in a format version this build does not read.
    case unsupportedVersion(UInt16)
    /// The entry's length field does not match the bytes given.
    case lengthMismatch(declared: Int, actual: Int)
    /// The CRC-32C stored in the entry does not match its bytes: the entry is corrupt.
    ///
    /// `seq` is the seq the caller expected when it gave one, otherwise the entry's own seq field as stored
    /// (unverified, since the checksum failed), or `nil` when the entry is too short to have one.
    case checksumMismatch(seq: UInt64?, stored: UInt32, computed: UInt32)
    /// The entry is intact but holds another seq than the one expected (the log's key).
    case unexpectedSeq(expected: UInt64, found: UInt64)
    /// A well-formed value ends at `offset`, but more bytes follow.
    case trailingBytes(offset: Int, count: Int)

    /// The byte offset of the field at fault, when there is one.
    public var offset: Int? {
        switch self {
        case .truncated(_, let o), .invalid(_, let o, _), .tooLarge(_, let o, _, _), .trailingBytes(let o, _): return o
        case .badMagic: return 0
        case .unsupportedVersion: return 4
        case .lengthMismatch: return 8
        case .checksumMismatch: return 12
        case .unexpectedSeq: return 16
        }
    }

    /// A one-line explanation naming the field, offset or attribute at fault.
    public var description: String {
        switch self {
        case let .truncated(field, offset):
            return "truncated: the bytes end inside \(field) (at byte \(offset))"
        case let .invalid(field, offset, reason):
            return "invalid \(field) at byte \(offset): \(reason)"
        case let .tooLarge(field, offset, value, limit):
            return "\(field) at byte \(offset) is \(value), more than the limit \(limit)"
        case .badMagic:
            return "not a transaction entry (bad magic bytes)"
        case .unsupportedVersion(let v):
            return "unsupported log format version \(v) (this build reads version \(CodecError.formatVersionRead))"
        case let .lengthMismatch(declared, actual):
            return "length mismatch: the entry says \(declared) bytes, but has \(actual)"
        case let .checksumMismatch(seq, stored, computed):
            let detail = "checksum mismatch (stored \(CodecError.hex(stored)), computed \(CodecError.hex(computed)))"
            if let seq { return "seq \(seq): \(detail)" }
            return detail
        case let .unexpectedSeq(expected, found):
            return "seq mismatch: expected seq \(expected), the entry holds seq \(found)"
        case let .trailingBytes(offset, count):
            return "\(count) unexpected bytes after the end at byte \(offset)"
        }
    }

    package static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

extension CodecError {
    /// What kind of error, as a stable code.
    public var code: ErrorCode {
        switch self {
        case .truncated: return .truncated
        case .invalid: return .invalidField
        case .tooLarge: return .tooLarge
        case .badMagic: return .badMagic
        case .unsupportedVersion: return .unsupportedVersion
        case .lengthMismatch: return .lengthMismatch
        case .checksumMismatch: return .checksumMismatch
        case .unexpectedSeq: return .unexpectedSeq
        case .trailingBytes: return .trailingBytes
        }
    }
}
