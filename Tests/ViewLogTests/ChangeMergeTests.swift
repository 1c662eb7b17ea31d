import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// ``ChangeMerge`` on its own: every request kind × object existing/missing at the head × every merge policy.
@Suite struct ChangeMergeTests {
    static let key = ObjectKey(entity: "Employee", id: .string("e1"))
    static let current: ObjectValues = ["name": .string("Ann"), "height": .int(170)]
    static let insert = ChangeRequest.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Bo"), "height": .int(1)])
    static let update = ChangeRequest.update(entity: "Employee", id: .string("e1"), values: ["height": .int(2)])
    static let delete = ChangeRequest.delete(entity: "Employee", id: .string("e1"))
    /// Another transaction (seq 5) updated `height`.
    static let theyUpdatedHeight = ConcurrentChange(attributes: ["height"], structural: false, seq: 5)
    /// Another transaction (seq 5) deleted (or inserted) the object.
    static let theyDeleted = ConcurrentChange(attributes: [], structural: true, seq: 5)

    static func conflict(_ attributes: [String] = []) -> MergeOutcome {
        .conflict(Conflict(key: key, attributes: attributes, seq: 5))
    }

    /// The context's whole object for `request` (what ``Context/save()`` passes for `.overwrite`).
    static func whole(_ request: ChangeRequest, base: ObjectValues?) -> ObjectValues? {
        switch request {
        case .insert(_, _, let v): return v
        case .update(_, _, let v): return base.map { $0.merging(v) { $1 } } ?? v
        case .delete: return nil
        case .updateMembers, .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate nor of sets")
        }
    }

    func resolve(_ request: ChangeRequest, _ policy: MergePolicy, theirs: ConcurrentChange, current: ObjectValues?) -> MergeOutcome {
        let merge = ChangeMerge(policy: policy, contextObjects: [Self.key: Self.whole(request, base: Self.current)])
        return merge.resolve(request, theirs: theirs, current: current)
    }

    @Test(arguments: MergePolicy.allCases)
    func objectExistsAndTheyUpdatedTheSameAttribute(policy: MergePolicy) {
        let r = { (request: ChangeRequest) in resolve(request, policy, theirs: Self.theyUpdatedHeight, current: Self.current) }
        let expected: [MergeOutcome]
        switch policy {
        case .error:
            expected = [Self.conflict(), Self.conflict(["height"]), Self.conflict()]
        case .mergeDisjointProperties:
            expected = [Self.conflict(), Self.conflict(["height"]), Self.conflict()]
        case .rollback, .mergeByPropertyStoreTrump:
            expected = [.requests([]), .requests([]), .requests([])]
        case .mergeByPropertyObjectTrump:
            expected = [.requests([.update(entity: "Employee", id: .string("e1"), values: ["name": .string("Bo"), "height": .int(1)])]),
                        .requests([Self.update]), .requests([Self.delete])]
        case .overwrite:
            expected = [.requests([.update(entity: "Employee", id: .string("e1"), values: ["name": .string("Bo"), "height": .int(1)])]),
                        .requests([.update(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(2)])]),
                        .requests([Self.delete])]
        }
        #expect([r(Self.insert), r(Self.update), r(Self.delete)] == expected, "\(policy)")
    }

    @Test(arguments: MergePolicy.allCases)
    func objectMissingBecauseTheyDeletedIt(policy: MergePolicy) {
        let r = { (request: ChangeRequest) in resolve(request, policy, theirs: Self.theyDeleted, current: nil) }
        let expected: [MergeOutcome]
        switch policy {
        case .error, .mergeDisjointProperties:
            expected = [Self.conflict(), Self.conflict(), Self.conflict()]
        case .rollback, .mergeByPropertyStoreTrump:
            expected = [.requests([]), .requests([]), .requests([])]
        case .mergeByPropertyObjectTrump:
            expected = [.requests([Self.insert]),
                        .requests([.insert(entity: "Employee", id: .string("e1"), values: ["height": .int(2)])]),
                        .requests([])]
        case .overwrite:
            expected = [.requests([Self.insert]),
                        .requests([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(2)])]),
                        .requests([])]
        }
        #expect([r(Self.insert), r(Self.update), r(Self.delete)] == expected, "\(policy)")
    }

    @Test(arguments: MergePolicy.allCases)
    func updatesOfOtherAttributes(policy: MergePolicy) {
        let rename = ChangeRequest.update(entity: "Employee", id: .string("e1"), values: ["name": .string("Cy")])
        let outcome = resolve(rename, policy, theirs: Self.theyUpdatedHeight, current: Self.current)
        switch policy {
        case .error: #expect(outcome == Self.conflict())
        case .rollback: #expect(outcome == .requests([]))
        case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .mergeDisjointProperties:
            #expect(outcome == .requests([rename]))
        case .overwrite:
            #expect(outcome == .requests([.update(entity: "Employee", id: .string("e1"), values: ["name": .string("Cy"), "height": .int(170)])]))
        }
    }
}
