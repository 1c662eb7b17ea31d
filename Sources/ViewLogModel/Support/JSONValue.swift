#if canImport(FoundationEssentials)
import FoundationEssentials  // LocalizedError
#else
import Foundation
#endif

/// A JSON document as ViewLog reads and writes it.
///
/// ViewLog parses JSON itself rather than through Foundation so that integers and doubles stay distinct
/// (`1` is an int, `1.0` and `1e3` are doubles), object keys keep their order, and every input — however
/// malformed or deep — gives a value or a ``JSONError``, never a trap (the decoder is total and bounded by
/// ``Limits/jsonDepthMax``).
@_spi(Engine) public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in document order. Duplicate keys are refused by the parser.
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public func hash(into h: inout Hasher) {
        switch self {
        case .null: h.combine(0)
        case .bool(let b): h.combine(b)
        case .int(let i): h.combine(i)
        case .double(let d): h.combine(d)
        case .string(let s): h.combine(s)
        case .array(let a): h.combine(a)
        case .object(let o):
            h.combine(o.count)
            for (k, v) in o { h.combine(k); h.combine(v) }
        }
    }

    /// The member `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// A short name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// Why a JSON text could not be read, with the byte offset where reading stopped.
@_spi(Engine) public struct JSONError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// 0-based byte offset into the text.
    public var offset: Int

    public var description: String { "bad JSON at byte \(offset + 1): \(message)" }
    /// The ``description``: what `localizedDescription` shows.
    public var errorDescription: String? { description }
}

extension JSONValue {
    /// Parses one JSON document (surrounding white space allowed, nothing else after it).
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { bytes in Result { () throws(JSONError) in try parse(bytes) } }
        return try result.get()
    }

    /// Parses one JSON document from UTF-8 bytes.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the document") }
        return value
    }
}

package struct JSONParser {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ message: String) -> JSONError { JSONError(message: message, offset: index) }

    package mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    package mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard depth < Limits.jsonDepthMax else { throw error("nested deeper than \(Limits.jsonDepthMax) levels") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Unicode.Scalar(bytes[index]))'")
        }
    }

    /// The bytes of the JSON string at the position, when it has no escapes and no control characters, and the
    /// position after it; `nil` (the position unchanged) otherwise. The bytes are as written: not checked as UTF-8,
    /// so they are for comparing with known names, not for making text.
    package mutating func plainStringBytes() -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        defer { index = end + 1 }
        return UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw error("unexpected end of input") }
        for k in 0..<n where bytes[index + k] != word.utf8Start[k] { throw error("invalid literal") }
        index += n
    }

    package mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        // Duplicate keys: a linear look over a small object's keys (an input line has a handful), a set past 16.
        var keys = Set<String>()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try string()
            let duplicate: Bool
            if members.count < 16 {
                duplicate = members.contains { $0.0 == key }
            } else {
                if keys.isEmpty { keys = Set(members.map(\.0)) }
                duplicate = !keys.insert(key).inserted
            }
            guard !duplicate else { throw error("duplicate key \"\(key)\"") }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipSpace()
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input in \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 55)
            default: throw error("invalid \\u escape")
            }
            v = v * 16 + d
            index += 1
        }
        return v
    }

    package mutating func string() throws(JSONError) -> String {
        index += 1
        var out: [UInt8] = []
        let start = index
        // Fast path: no escapes. ASCII (every byte's high bit clear) needs no UTF-8 validation, which costs a
        // generic call per string (a tenth of `append --file`'s time when measured).
        var high: UInt8 = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
            high |= bytes[index]
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
            let s = high < 0x80 ? String(decoding: run, as: UTF8.self) : try validUTF8(run)
            index += 1
            return s
        }
        out.append(contentsOf: bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") { index += 1; break }
            if c < 0x20 { throw error("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw error("invalid escape '\\\(Unicode.Scalar(e))'")
            }
        }
        let result = out.withUnsafeBufferPointer { b in Result { () throws(JSONError) in try validUTF8(b) } }
        return try result.get()
    }

    func validUTF8(_ b: UnsafeBufferPointer<UInt8>) throws(JSONError) -> String {
        guard let s = String(validating: b, as: UTF8.self) else { throw error("invalid UTF-8 in string") }
        return s
    }

    mutating func number() throws(JSONError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (48...57).contains(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, (48...57).contains(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, (48...57).contains(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        guard index - start <= 400 else { throw error("number too long") }
        // An integer of at most 18 digits fits an Int64: read it from the digits, without a String.
        let negative = bytes[start] == UInt8(ascii: "-")
        if isInteger, index - start - (negative ? 1 : 0) <= 18 {
            var magnitude: Int64 = 0
            for b in bytes[(negative ? start + 1 : start)..<index] { magnitude = magnitude * 10 + Int64(b - 48) }
            return .int(negative ? -magnitude : magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let i = Int64(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else { throw JSONError(message: "number out of range", offset: start) }
        return .double(d)
    }
}

extension JSONValue {
    /// Compact one-line JSON, with `", "` and `": "` separators as in the CLI contract (written by
    /// ``JSONWriter``, the one place that knows the escapes).
    public var text: String {
        var w = JSONWriter()
        w.json(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
