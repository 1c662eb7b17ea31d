extension JSONWriter {
    /// Writes JSON straight into memory that ``JSONWriter/appendUnchecked(atMost:_:)`` reserved: no capacity or
    /// uniqueness check per piece, only a bound check per write (it traps rather than write past the reservation).
    /// The one place where strings are escaped and integers turned into digits.
    public struct Unchecked {
        private var p: UnsafeMutablePointer<UInt8>
        private let end: UnsafeMutablePointer<UInt8>

        /// The most bytes an `Int64` takes in decimal (`-9223372036854775808`).
        public static let intBytesMax = 20
        /// The most bytes a string of `utf8Count` bytes takes as JSON: every byte escaped as `\u00XX`, and quotes.
        public static func stringBytesMax(_ utf8Count: Int) -> Int { 6 * utf8Count + 2 }

        init(start: UnsafeMutablePointer<UInt8>, capacity: Int) {
            p = start
            end = start + capacity
        }

        /// The bytes written since `start` (where this writer started).
        func written(since start: UnsafeMutablePointer<UInt8>) -> Int { p - start }

        @inline(__always)
        private mutating func byte(_ b: UInt8) {
            precondition(p < end, "JSON written past its reserved bytes")
            p.pointee = b
            p += 1
        }

        @inline(__always)
        private mutating func copy(_ source: UnsafeRawPointer, _ count: Int) {
            precondition(count <= end - p, "JSON written past its reserved bytes")
            UnsafeMutableRawPointer(p).copyMemory(from: source, byteCount: count)
            p += count
        }

        /// Writes ASCII punctuation (`", "`, `{"id": `).
        @inline(__always)
        public mutating func raw(_ text: StaticString) {
            copy(text.utf8Start, text.utf8CodeUnitCount)
        }

        /// Writes bytes as they are (already JSON).
        @inline(__always)
        public mutating func raw(bytes: UnsafeRawBufferPointer) {
            if let base = bytes.baseAddress { copy(base, bytes.count) }
        }

        /// Writes `null`.
        public mutating func null() { raw("null") }

        /// Writes an integer in decimal.
        public mutating func int(_ i: Int64) {
            if i < 0 { byte(UInt8(ascii: "-")) }
            var u = i.magnitude
            if u < 10 { byte(48 + UInt8(u)); return }
            // The digits right to left into a buffer on the stack (20 holds any UInt64), then copied at once.
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &digits) { d in
                var n = d.count
                while u > 0 {  // bounded: at most 20 digits
                    n -= 1
                    d[n] = 48 + UInt8(u % 10)
                    u /= 10
                }
                copy(d.baseAddress! + n, d.count - n)
            }
        }

        /// Writes a JSON string given as valid UTF-8 bytes: `\\"`, `\\\\`, `\\n`, `\\r`, `\\t`, and `\\u00XX` for other
        /// control characters and DEL; everything else as its bytes.
        public mutating func string(utf8: UnsafeRawBufferPointer) {
            byte(UInt8(ascii: "\""))
            var start = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F {
                if start < i { copy(utf8.baseAddress! + start, i - start) }
                escape(b)
                start = i + 1
            }
            if start < utf8.count { copy(utf8.baseAddress! + start, utf8.count - start) }
            byte(UInt8(ascii: "\""))
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
                byte(Self.hexDigit(b >> 4))
                byte(Self.hexDigit(b & 0xF))
            }
        }

        /// The lower-case hex digit of `nibble` (0…15).
        @inline(__always)
        private static func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }

        /// The most bytes ``value(_:)`` writes for a value other than a string: a double's shortest text or a
        /// date's ISO 8601 string, with room to spare.
        public static let scalarBytesMax = 48

        /// The most bytes ``value(_:)`` writes for `v`: ``stringBytesMax(_:)`` of a string, its members' and
        /// separators' of a set, ``scalarBytesMax`` for anything else.
        @inline(__always)
        public static func bytesMax(of v: Value) -> Int {
            if case .string(let s) = v { return stringBytesMax(s.utf8.count) }
            if case .set(let ids) = v {
                // Brackets, then each member and its separator.
                return ids.reduce(2) { n, id in
                    if case .string(let s) = id { return n + 2 + stringBytesMax(s.utf8.count) }
                    return n + 2 + scalarBytesMax
                }
            }
            return scalarBytesMax
        }

        /// Writes a value as ``Value/json`` gives it, in at most ``bytesMax(of:)`` bytes.
        public mutating func value(_ v: Value) {
            switch v {
            case .null: null()
            case .string(let s):
                var s = s
                s.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
            case .int(let i): int(i)
            case .double(let d):
                var text = d.shortestText
                text.withUTF8 { raw(bytes: UnsafeRawBufferPointer($0)) }
            case .bool(let b): if b { raw("true") } else { raw("false") }
            case .date(let t):
                var text = t.iso8601
                text.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
            case .set(let ids):
                raw("[")
                for (i, id) in ids.enumerated() {
                    if i > 0 { raw(", ") }
                    value(id.value)
                }
                raw("]")
            }
        }

        /// Writes the key of member `j` of `keys`, after `", "` unless `j` is 0.
        @inline(__always)
        public mutating func key(_ j: Int, of keys: MemberKeys) {
            if j > 0 { raw(", ") }
            keys.withKey(j) { raw(bytes: $0) }
        }
    }
}
