/// A timestamp codes as its JSON form, an ISO-8601 string (``Timestamp/iso8601``), so that a typed model
/// holding ``Timestamp``s can be `Codable`. ``ObjectValuesEncoder`` and ``ObjectValuesDecoder`` do not use
/// this: they store a timestamp directly as a `date` value.
extension Timestamp: Codable {
    /// Reads an ISO-8601 date-time as ``init(iso8601:)`` does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let timestamp = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' \(Timestamp.problem(iso8601: text))")
        }
        self = timestamp
    }

    /// Writes ``iso8601``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
