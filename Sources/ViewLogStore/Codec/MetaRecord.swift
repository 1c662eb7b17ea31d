@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Values of the `meta` database (format version, head, schemas) and their checksums.
///
/// In log format 2 every value ends with a `u32` CRC-32C of the record's key followed by its payload, checked on
/// every read: a changed byte in the stored schema or head is an error naming the record, never other data, and
/// a record copied under another key fails too. Log format 1 stored the bare payload. Layout:
/// `schema/log-format.md`.
enum MetaRecord {
    /// Bytes of the checksum that ends a format-2 value.
    static let checksumBytes = 4

    /// The value to store under `key` for `payload` in a store of log format `format`.
    static func encode(_ payload: [UInt8], key: [UInt8], format: Int) -> [UInt8] {
        guard format >= 2 else { return payload }
        var out = payload
        let crc = payload.withUnsafeBytes { CRC32C.checksum($0, seed: CRC32C.checksum(key)) }
        withUnsafeBytes(of: crc.littleEndian) { out.append(contentsOf: $0) }
        return out
    }

    /// The payload of `value`, stored under `key` in a store of log format `format`, after checking its checksum.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` naming `record` when the checksum does not match.
    static func payload(_ value: UnsafeRawBufferPointer, key: [UInt8], format: Int, record: @autoclosure () -> String,
                        in place: String = "the metadata") throws(StoreError) -> UnsafeRawBufferPointer {
        guard format >= 2 else { return value }
        guard value.count >= checksumBytes else {
            throw .corrupt(seq: nil, reason: "\(record()) in \(place) is truncated (\(value.count) bytes)")
        }
        let payload = UnsafeRawBufferPointer(rebasing: value[..<(value.count - checksumBytes)])
        let stored = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: payload.count, as: UInt32.self))
        let computed = key.withUnsafeBytes { CRC32C.checksum(payload, seed: CRC32C.checksum($0)) }
        guard stored == computed else {
            throw .corrupt(seq: nil, reason: "\(record()) in \(place) fails its checksum (stored \(CodecError.hex(stored)), computed \(CodecError.hex(computed)))")
        }
        return payload
    }
}

extension MetaRecord {
    /// The payload of `value`; the same as the buffer overload.
    static func payload(_ value: [UInt8], key: [UInt8], format: Int,
                        record: @autoclosure () -> String) throws(StoreError) -> [UInt8] {
        let result = value.withUnsafeBytes { raw in
            Result { () throws(StoreError) in Array(try payload(raw, key: key, format: format, record: record())) }
        }
        return try result.get()
    }
}
