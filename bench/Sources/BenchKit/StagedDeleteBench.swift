@_spi(Engine) import ViewLog

// A context staging changes after a staged delete (DESIGN §6, §10): the context shows what the delete rules of its
// staged deletes will do, so every later staging may have to keep that up to date.

/// What ``measureStagedUpdatesAfterDelete(store:org:department:updates:belowHead:)`` measured, in nanoseconds.
public struct StagedDeleteResult: Sendable {
    /// Staging the delete of the department (its rules walked once).
    public var delete: Double
    /// Each staged update after it.
    public var updates: Timing
    /// All the updates together.
    public var updatesTotal: Double
    /// The process's CPU time over the updates (user + sys).
    public var updatesCPU: Double
    /// The department's employees, and those the context shows without a department (all of them: nullified).
    public var members: Int
    public var nullified: Int
}

/// Stages the delete of department `department` in a new context on `store` (one transaction below the head with
/// `belowHead`: a department's rename is appended after the context's position), then `updates` renames of random
/// employees of `org`, each staged and timed alone. Nothing is saved.
public func measureStagedUpdatesAfterDelete(store: LogStore, org: Org, department: Int, updates: Int,
                                            belowHead: Bool) -> StagedDeleteResult {
    do {
        let position = try store.head
        if belowHead {
            try store.append([.update(entity: "Department", id: .int(Int64(department) + 1), values: ["name": .string("renamed")])],
                             author: RelWorkload.author)
        }
        let context = try Context(store: store, name: "bench", at: position)
        let delete = try time { try context.delete("Department", id: .int(Int64(department))) }
        var g = SeededGenerator(seed: 7)
        var samples: [Double] = []
        samples.reserveCapacity(updates)
        let c0 = processCPUNanoseconds()
        for i in 0..<updates {
            let id = Int64.random(in: 1...Int64(org.employees.count), using: &g)
            samples.append(try time { try context.update("Employee", id: .int(id), values: ["name": .string("u\(i)")]) })
        }
        let cpu = Double(processCPUNanoseconds() - c0)
        let members = org.employees.filter { $0.department == department }
        var nullified = 0
        for e in members where try context.object(ObjectKey(entity: "Employee", id: .int(Int64(e.id))))?["department"] == .null {
            nullified += 1
        }
        return StagedDeleteResult(delete: delete, updates: Timing(samples), updatesTotal: samples.reduce(0, +),
                                  updatesCPU: cpu, members: members.count, nullified: nullified)
    } catch { fatalError("staged updates after a delete: \(error)") }
}
