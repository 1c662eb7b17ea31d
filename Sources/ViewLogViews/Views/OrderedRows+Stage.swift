@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery

extension OrderedRows {
    /// Stages the row of an object that belongs to the view, its key encoded by `order` (the rows' order, read
    /// once by the caller: reading it per row retained its arrays) in `key` (a buffer reused per row).
    /// - Returns: the row's slot in the slab.
    @discardableResult
    package func stage(_ id: ObjectID, _ values: ObjectValues, order: RowOrder, key: inout ByteWriter) -> UInt32 {
        stageRow(id, values, order: order, key: &key)
    }

    /// ``stage(_:_:order:key:)`` of an object read with only the attributes the view reads (an initial fetch's).
    @discardableResult
    package func stage(_ id: ObjectID, _ values: FetchedValues, order: RowOrder, key: inout ByteWriter) -> UInt32 {
        stageRow(id, values, order: order, key: &key)
    }

    /// The two ``stage(_:_:order:key:)``s, specialized here: a generic call from another module would run the key's
    /// encoding unspecialized (an initial fetch 10 % slower in `perf` when it did).
    @inline(__always)
    private func stageRow<V: AttributeValues>(_ id: ObjectID, _ values: V, order: RowOrder, key: inout ByteWriter) -> UInt32 {
        key.truncate(to: 0)
        let idStart = order.encode(id: id, values: values, into: &key)
        return key.withBytes(0..<key.count) { stage($0, idStart: idStart) }
    }
}
