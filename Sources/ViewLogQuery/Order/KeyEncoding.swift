@_spi(Engine) import ViewLogModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte encoding of view keys: every value and id becomes bytes whose `memcmp` order is the view order of
/// the query language, so that a view compares keys without touching a ``Value``.
///
/// A key component (one value with its direction) is self-delimiting and no component's bytes are a prefix of
/// another's, so the concatenation of components compares component by component, and a descending component
/// is the ascending one with every byte complemented.
///
/// - `null`: one tag byte, before every other tag.
/// - `bool`: tag, then `0` or `1`.
/// - numbers (`int` and `double` alike, exactly): a tag for −∞, negative, zero, positive, +∞ and NaN (NaN last,
///   as ``Value/compare(_:_:)`` orders it); a finite non-zero number `m × 2^e` is normalized to its binary
///   exponent `E` (2 bytes, biased) and the bits after its leading one, left-aligned in 8 bytes. An int64 has at
///   most 63 such bits and a double 52, so both are exact, and an int and a double of equal value encode the
///   same. Negative numbers complement exponent and bits. `-0.0` is zero.
/// - strings: tag, the UTF-8 bytes (code-point order) with `00` escaped as `00 FF`, then the terminator `00 01`.
/// - dates: tag, then the milliseconds as a sign-flipped big-endian 64-bit integer.
///
/// Ids (always last, always ascending) encode as `01` + a sign-flipped big-endian int64, or `02` + an escaped,
/// terminated string: ints before strings, as ``ObjectID`` orders them.
@usableFromInline package enum KeyEncoding {
    @usableFromInline static let nullTag: UInt8 = 0x10
    @usableFromInline static let boolTag: UInt8 = 0x20
    @usableFromInline static let negativeInfinityTag: UInt8 = 0x30
    @usableFromInline static let negativeTag: UInt8 = 0x31
    @usableFromInline static let zeroTag: UInt8 = 0x32
    @usableFromInline static let positiveTag: UInt8 = 0x33
    @usableFromInline static let positiveInfinityTag: UInt8 = 0x34
    @usableFromInline static let nanTag: UInt8 = 0x35
    @usableFromInline static let stringTag: UInt8 = 0x40
    @usableFromInline static let dateTag: UInt8 = 0x50
    @usableFromInline static let intIDTag: UInt8 = 0x01
    @usableFromInline static let stringIDTag: UInt8 = 0x02
    /// Biases the binary exponent of a number (−1074 … 1023 for doubles, 0 … 63 for ints) into a UInt16.
    @usableFromInline static let exponentBias = 0x8000

    /// Most bytes one non-string value takes (a number: tag, exponent, bits).
    @usableFromInline static let fixedValueBytesMax = 11
    /// Bytes of an int id.
    @usableFromInline static let intIDBytes = 9

    // MARK: - Encoding

    /// Appends `value` with its direction.
    @inlinable package static func append<Out: KeySink & ~Copyable>(_ value: Value, ascending: Bool, to out: inout Out) {
        let start = out.count
        switch value {
        case .null: out.append(nullTag)
        case .bool(let b):
            out.append(boolTag)
            out.append(b ? 1 : 0)
        case .int(let i):
            if i == 0 { out.append(zeroTag) } else { appendNumber(negative: i < 0, mantissa: i.magnitude, exponent: 0, to: &out) }
        case .double(let d):
            if d.isNaN {
                out.append(nanTag)
            } else if d == 0 {
                out.append(zeroTag)
            } else if d.isInfinite {
                out.append(d < 0 ? negativeInfinityTag : positiveInfinityTag)
            } else {
                let bits = d.significandBitPattern
                let mantissa = d.isSubnormal ? bits : bits | (1 << 52)
                let exponent = d.isSubnormal ? -1074 : Int(d.exponentBitPattern) - 1075
                appendNumber(negative: d < 0, mantissa: mantissa, exponent: exponent, to: &out)
            }
        case .string(let s):
            out.append(stringTag)
            appendEscaped(s, to: &out)
        case .date(let t):
            out.append(dateTag)
            out.appendBigEndian(UInt64(bitPattern: t.milliseconds) ^ (1 << 63))
        case .set:
            // A key path that ends in a to-many relationship is refused when the view is made (KeyPath).
            preconditionFailure("a set is never a key component")
        }
        if !ascending {
            out.complementBytes(from: start)
        }
    }

    /// Appends the id (ascending).
    @inlinable package static func append<Out: KeySink & ~Copyable>(id: ObjectID, to out: inout Out) {
        switch id {
        case .int(let i):
            out.append(intIDTag)
            out.appendBigEndian(UInt64(bitPattern: i) ^ (1 << 63))
        case .string(let s):
            out.append(stringIDTag)
            appendEscaped(s, to: &out)
        }
    }

    /// A finite non-zero number `mantissa × 2^exponent` (mantissa > 0), normalized.
    @inlinable internal static func appendNumber<Out: KeySink & ~Copyable>(negative: Bool, mantissa: UInt64, exponent: Int, to out: inout Out) {
        let lead = mantissa.leadingZeroBitCount
        let binaryExponent = exponent + (63 - lead)
        let fraction = mantissa << (lead + 1)  // the bits after the leading one, left-aligned (0 past 64 shifts)
        let e = UInt16(binaryExponent + exponentBias)
        out.append(negative ? negativeTag : positiveTag)
        let flip: UInt8 = negative ? 0xFF : 0
        out.append(UInt8(e >> 8) ^ flip)
        out.append(UInt8(e & 0xFF) ^ flip)
        out.appendBigEndian(negative ? ~fraction : fraction)
    }

    @inlinable internal static func appendEscaped<Out: KeySink & ~Copyable>(_ s: String, to out: inout Out) {
        // A string without a 0x00 byte (nearly all) is copied whole: byte by byte cost ~45 instructions a byte.
        let copied = s.utf8.withContiguousStorageIfAvailable { b -> Bool in
            guard let base = b.baseAddress else { return b.isEmpty }
            guard memchr(base, 0, b.count) == nil else { return false }
            out.append(bytes: UnsafeRawBufferPointer(b))
            return true
        }
        if copied != true {
            for b in s.utf8 {
                out.append(b)
                if b == 0 { out.append(0xFF) }
            }
        }
        out.append(0)
        out.append(1)
    }

    // MARK: - Reading back

    /// The offset just past the component that starts at `start` of `bytes`, encoded with direction `ascending`.
    @inlinable static func componentEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, ascending: Bool) -> Int {
        let flip: UInt8 = ascending ? 0 : 0xFF
        switch bytes[start] ^ flip {
        case boolTag: return start + 2
        case negativeTag, positiveTag: return start + 11
        case dateTag: return start + 9
        case stringTag: return stringEnd(bytes, from: start + 1, flip: flip)
        default: return start + 1
        }
    }

    /// ``componentEnd(_:from:ascending:)`` for bytes read from the store: `nil` when they do not hold a whole
    /// component at `start` (total: never reads past the end).
    @inlinable package static func checkedComponentEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, ascending: Bool) -> Int? {
        guard start < bytes.count else { return nil }
        let flip: UInt8 = ascending ? 0 : 0xFF
        let end: Int
        switch bytes[start] ^ flip {
        case nullTag, zeroTag, nanTag, negativeInfinityTag, positiveInfinityTag: end = start + 1
        case boolTag: end = start + 2
        case negativeTag, positiveTag: end = start + 11
        case dateTag: end = start + 9
        case stringTag: return checkedStringEnd(bytes, from: start + 1, flip: flip)
        default: return nil
        }
        return end <= bytes.count ? end : nil
    }

    /// The offset just past the id that starts at `start`, or `nil` when the bytes hold none there (total).
    @inlinable package static func checkedIDEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case intIDTag: return start + 9 <= bytes.count ? start + 9 : nil
        case stringIDTag: return checkedStringEnd(bytes, from: start + 1, flip: 0)
        default: return nil
        }
    }

    /// ``stringEnd(_:from:flip:)`` that never reads past the end: `nil` for a string without its terminator or
    /// with a bad escape.
    @inlinable internal static func checkedStringEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, flip: UInt8) -> Int? {
        var i = start
        while i < bytes.count {  // bounded: i grows every step
            guard bytes[i] ^ flip == 0 else {
                i += 1
                continue
            }
            guard i + 1 < bytes.count else { return nil }
            switch bytes[i + 1] ^ flip {
            case 1: return i + 2
            case 0xFF: i += 2
            default: return nil
            }
        }
        return nil
    }

    /// The offset just past an escaped, terminated string whose bytes begin at `start`.
    @inlinable internal static func stringEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, flip: UInt8) -> Int {
        var i = start
        while true {
            if bytes[i] ^ flip == 0 {
                if bytes[i + 1] ^ flip == 1 { return i + 2 }
                i += 2
            } else {
                i += 1
            }
        }
    }

    /// The string whose escaped bytes begin at `start` (the terminator ends it).
    @inlinable internal static func string(_ bytes: UnsafeRawBufferPointer, from start: Int, flip: UInt8) -> String {
        let end = stringEnd(bytes, from: start, flip: flip) - 2
        var raw: [UInt8] = []
        raw.reserveCapacity(end - start)
        var i = start
        while i < end {
            raw.append(bytes[i] ^ flip)
            i += raw.last == 0 ? 2 : 1
        }
        return String(decoding: raw, as: UTF8.self)
    }

    @inline(__always)
    @inlinable internal static func bigEndian(_ bytes: UnsafeRawBufferPointer, at start: Int, flip: UInt8) -> UInt64 {
        var v: UInt64 = 0
        for i in start..<(start + 8) { v = v << 8 | UInt64(bytes[i] ^ flip) }
        return v
    }

    /// The value of the component at `start`, as a value of `type` (`nil`: the component's own kind decides;
    /// numbers then read back as ints when integral and in range).
    @inlinable package static func value(_ bytes: UnsafeRawBufferPointer, at start: Int, ascending: Bool, type: AttributeType?) -> Value {
        let flip: UInt8 = ascending ? 0 : 0xFF
        let tag = bytes[start] ^ flip
        switch tag {
        case nullTag: return .null
        case boolTag: return .bool(bytes[start + 1] ^ flip != 0)
        case stringTag: return .string(string(bytes, from: start + 1, flip: flip))
        case dateTag: return .date(Timestamp(milliseconds: Int64(bitPattern: bigEndian(bytes, at: start + 1, flip: flip) ^ (1 << 63))))
        case zeroTag: return type == .double ? .double(0) : .int(0)
        case nanTag: return .double(.nan)
        case negativeInfinityTag: return .double(-.infinity)
        case positiveInfinityTag: return .double(.infinity)
        default:
            let negative = tag == negativeTag
            let numberFlip: UInt8 = negative ? 0xFF : 0
            let e = Int(UInt16(bytes[start + 1] ^ flip ^ numberFlip) << 8 | UInt16(bytes[start + 2] ^ flip ^ numberFlip))
                - exponentBias
            let fraction = bigEndian(bytes, at: start + 3, flip: flip ^ numberFlip)
            if type != .double, e >= 0, e <= 63, fraction << UInt64(e) == 0 {
                // An integer: the leading one, then e bits of fraction.
                let magnitude = (1 << UInt64(e)) | (e == 0 ? 0 : fraction >> UInt64(64 - e))
                if negative, magnitude <= UInt64(Int64.max) + 1 {
                    return .int(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
                }
                if !negative, magnitude <= UInt64(Int64.max) { return .int(Int64(magnitude)) }
            }
            let d = Double(sign: negative ? .minus : .plus, exponent: e,
                           significand: 1 + Double(fraction >> 11) / Double(UInt64(1) << 53))
            return .double(d)
        }
    }

    /// The id that starts at `start`.
    @inlinable package static func id(_ bytes: UnsafeRawBufferPointer, at start: Int) -> ObjectID {
        if bytes[start] == intIDTag {
            return .int(Int64(bitPattern: bigEndian(bytes, at: start + 1, flip: 0) ^ (1 << 63)))
        }
        return .string(string(bytes, from: start + 1, flip: 0))
    }
}
