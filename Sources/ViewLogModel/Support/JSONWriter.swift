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
        private var keys = PackedBytes()

        /// The keys of members named `names`, in order.
        public init(_ names: [String]) {
            for name in names {
                var w = JSONWriter()
                w.key(name, first: true)
                keys.append(w.bytes)
            }
        }

        /// The bytes of all the keys together.
        public var byteCount: Int { keys.byteCount }

        package func withKey<R>(_ j: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R { keys.withPiece(j, body) }
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
        appendUnchecked(atMost: Unchecked.intBytesMax) { $0.int(i) }
    }

    /// Appends a JSON string: `\"`, `\\`, `\n`, `\r`, `\t`,
    /// and `\u00XX` for other control characters and DEL; everything else as its UTF-8 bytes.
    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Appends a JSON string given as valid UTF-8 bytes, escaped as ``string(_:)`` escapes.
    public mutating func string(utf8: UnsafeRawBufferPointer) {
        appendUnchecked(atMost: Unchecked.stringBytesMax(utf8.count)) { $0.string(utf8: utf8) }
    }

    /// Appends at most `maxBytes` bytes that `body` writes through an ``Unchecked`` writer straight into the
    /// buffer's spare capacity: one capacity check for a whole piece (a string, a number, an object's members)
    /// instead of one per byte or run. The writer traps past `maxBytes`.
    @inline(__always)
    public mutating func appendUnchecked<E: Error>(atMost maxBytes: Int, _ body: (inout Unchecked) throws(E) -> Void) throws(E) {
        var failure: E?
        bytes.append(addingCapacity: maxBytes) { out in
            out.withUnsafeMutableBufferPointer { buffer, count in
                let start = buffer.baseAddress! + count
                var w = Unchecked(start: start, capacity: buffer.count - count)
                do throws(E) { try body(&w) } catch { failure = error }
                count += w.written(since: start)
            }
        }
        if let failure { throw failure }
    }

    /// Appends a value as ``Value/json`` gives it: dates as ISO-8601 strings, doubles in their shortest text.
    public mutating func value(_ v: Value) {
        // The one rule of how a value is written, and of its room, is the unchecked writer's.
        appendUnchecked(atMost: Unchecked.bytesMax(of: v)) { $0.value(v) }
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
