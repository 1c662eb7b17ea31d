/// Writes compact one-line JSON straight into a byte buffer: `", "` and `": "` separators, strings with the
/// escapes of ``string(_:)``, doubles in their shortest text. ``JSONValue/text`` writes through it, and the CLI
/// writes large documents with it straight from values, without building a ``JSONValue`` tree or a `String` per
/// value.
///
/// The caller writes the punctuation of arrays and objects with ``raw(_:)``; values go through
/// ``value(_:)``, ``string(_:)``, ``int(_:)``.
@_spi(Engine) public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Appends ASCII punctuation or a key written by the caller (`{"position": `).
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends an object member's key, `"name": `, after `", "` unless it is the object's first member.
    public mutating func key(_ name: String, first: Bool) {
        if !first { raw(", ") }
        string(name)
        raw(": ")
    }

    /// The keys of an object's members written once as bytes (`"name": `), for a caller that writes many
    /// objects with the same members: no name is escaped again per object.
    public struct MemberKeys: Sendable {
        private var bytes: [UInt8] = []
        private var ends: [Int] = []

        /// The keys of members named `names`, in order.
        public init(_ names: [String]) {
            var w = JSONWriter()
            for name in names {
                w.key(name, first: true)
                ends.append(w.bytes.count)
            }
            bytes = w.bytes
        }

        func withKey<R>(_ j: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            bytes.withUnsafeBufferPointer { all in body(UnsafeBufferPointer(rebasing: all[(j == 0 ? 0 : ends[j - 1])..<ends[j]])) }
        }
    }

    /// Appends the key of member `j` of `keys`, after `", "` unless `j` is 0 (the object's first member).
    @inline(__always)
    public mutating func key(_ j: Int, of keys: MemberKeys) {
        if j > 0 { raw(", ") }
        keys.withKey(j) { bytes.append(contentsOf: $0) }
    }

    /// Appends `null`.
    public mutating func null() { raw("null") }

    /// Appends an integer in decimal.
    public mutating func int(_ i: Int64) {
        if i < 0 {
            bytes.append(UInt8(ascii: "-"))
            unsigned(i.magnitude)
        } else {
            unsigned(UInt64(i))
        }
    }

    private mutating func unsigned(_ u: UInt64) {
        if u < 10 { bytes.append(48 + UInt8(u)); return }
        // The digits right to left into a buffer on the stack (20 holds any UInt64), then appended at once.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { d in
            var n = d.count
            var v = u
            while v > 0 {  // bounded: at most 20 digits
                n -= 1
                d[n] = 48 + UInt8(v % 10)
                v /= 10
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[n...]))
        }
    }

    /// Appends a JSON string: `\"`, `\\`, `\n`, `\r`, `\t`,
    /// and `\u00XX` for other control characters and DEL; everything else as its UTF-8 bytes.
    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Appends a JSON string given as valid UTF-8 bytes, escaped as ``string(_:)`` escapes.
    public mutating func string(utf8: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for (i, b) in utf8.enumerated() where b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F {
            if start < i { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[start..<i])) }
            escape(b)
            start = i + 1
        }
        if start < utf8.count { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[start...])) }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ b: UInt8) {
        switch b {
        case 0x22: raw("\\\"")
        case 0x5C: raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        default:
            raw("\\u00")
            bytes.append(JSONWriter.hexDigit(b >> 4))
            bytes.append(JSONWriter.hexDigit(b & 0xF))
        }
    }

    /// The lower-case hex digit of `nibble` (0…15).
    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Appends a value as ``Value/json`` gives it: dates as ISO-8601 strings, doubles in their shortest text.
    public mutating func value(_ v: Value) {
        switch v {
        case .null: null()
        case .string(let s): string(s)
        case .int(let i): int(i)
        case .double(let d): bytes.append(contentsOf: d.shortestText.utf8)
        case .bool(let b): if b { raw("true") } else { raw("false") }
        case .date(let t): string(t.iso8601)
        }
    }

    /// Appends an id as ``ObjectID/json`` gives it: a string or an integer.
    public mutating func id(_ id: ObjectID) {
        switch id {
        case .string(let s): string(s)
        case .int(let i): int(i)
        }
    }

    /// Appends a ``JSONValue`` tree.
    public mutating func json(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): if b { raw("true") } else { raw("false") }
        case .int(let i): int(i)
        case .double(let d): bytes.append(contentsOf: d.shortestText.utf8)
        case .string(let s): string(s)
        case .array(let elements):
            raw("[")
            for (i, e) in elements.enumerated() {
                if i > 0 { raw(", ") }
                json(e)
            }
            raw("]")
        case .object(let members):
            raw("{")
            for (i, (k, e)) in members.enumerated() {
                if i > 0 { raw(", ") }
                string(k)
                raw(": ")
                json(e)
            }
            raw("}")
        }
    }
}
