@_spi(Engine) import ViewLog

/// The named views the stored-view appends keep (DESIGN §11): the bench's view, a filtered one by name, and a
/// sectioned one in descending order.
public enum StoredViewWorkload {
    static let views = [
        #""byScore": {"entity": "Item", "where": "score >= 0", "sort": "score"}"#,
        #""activeByName": {"entity": "Item", "where": "active == YES", "sort": "name"}"#,
        #""sections": {"entity": "Item", "sort": "score desc, name", "section": "active"}"#,
    ]

    /// The bench's schema with the first `count` of ``views`` as named views.
    public static func schema(views count: Int) -> Schema {
        let entities = #"{"Item": {"id": "int", "attributes": {"name": {"type": "string"}, "score": {"type": "int"}, "active": {"type": "bool", "default": true}}}}"#
        let text = "{\"entities\": \(entities)" + (count == 0 ? "" : ", \"views\": {" + views.prefix(count).joined(separator: ", ") + "}") + "}"
        do { return try Schema(jsonText: text) } catch { fatalError("stored-view bench schema: \(error)") }
    }
}

/// Appends of 10,000 inserts per durable write into three fresh stores whose schemas have 0, 1 and 3 stored named
/// views, the stores taking turns write after write so that all see the same machine load. Returns nanoseconds per
/// write for each view count.
public func measureAppendWithStoredViews(root: String, writes: Int, rounds: Int = 5) -> [Int: [Double]] {
    let counts = [0, 1, 3]
    let stores = counts.map { n -> LogStore in
        do {
            return try LogStore.create(at: scratchPath(root, "append-views-\(n)"), schema: StoredViewWorkload.schema(views: n),
                                       options: StoreOptions(durable: true, mapSizeBytes: 1 << 30))
        } catch { fatalError("create store: \(error)") }
    }
    let plan = AppendPlan(shape: .batch, writes: writes * rounds + 1, firstID: 1, firstSeq: 1)
    for s in stores { do { try s.append(plan.requests[0]) } catch { fatalError("append: \(error)") } }
    var out: [Int: [Double]] = [:]
    for i in 1..<plan.requests.count {
        for (k, s) in stores.enumerated() {
            let requests = plan.requests[i]
            out[counts[k], default: []].append(time { do { try s.append(requests) } catch { fatalError("append: \(error)") } })
        }
    }
    for n in counts { removeTree(root + "/append-views-\(n)") }
    return out
}
