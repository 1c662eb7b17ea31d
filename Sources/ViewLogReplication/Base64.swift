/// Base64 (RFC 4648, with padding) for the schema in a stream's description: the C client writes the
/// description into its JSON request without escaping it, so it must hold no quote, backslash or newline.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The decoded bytes, or `nil` for text that is not padded base64.
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): return 62
            case UInt8(ascii: "/"): return 63
            default: return nil
            }
        }
        var i = 0
        while i < chars.count {
            let last = i + 4 == chars.count
            let pad = last ? (chars[i + 3] == UInt8(ascii: "=") ? (chars[i + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            guard let v0 = value(chars[i]), let v1 = value(chars[i + 1]) else { return nil }
            out.append(v0 << 2 | v1 >> 4)
            if pad < 2 {
                guard let v2 = value(chars[i + 2]) else { return nil }
                out.append((v1 & 0x0F) << 4 | v2 >> 2)
                if pad < 1 {
                    guard let v3 = value(chars[i + 3]) else { return nil }
                    out.append((v2 & 0x03) << 6 | v3)
                }
            }
            i += 4
        }
        return out
    }
}
