import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Departments with employees (each with an optional department, manager and mentor: nullify, nullify and cascade,
/// the last two naming employees), projects owned by a department (required, cascade) and led by an employee
/// (nullify), tasks of a project (cascade): chains of cascades, self-relationships and cycles.
let deleteRulesSchemaText = """
{"entities": {
  "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
  "Employee": {"id": "string", "attributes": {"name": {"type": "string"}},
    "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"},
                      "manager": {"to": "Employee", "optional": true, "inverse": "reports"},
                      "mentor": {"to": "Employee", "optional": true, "onDelete": "cascade", "inverse": "mentees"}}},
  "Project": {"id": "int", "attributes": {"title": {"type": "string"}},
    "relationships": {"owner": {"to": "Department", "onDelete": "cascade", "inverse": "projects"},
                      "lead": {"to": "Employee", "optional": true, "inverse": "led"}}},
  "Task": {"id": "int", "attributes": {"title": {"type": "string"}},
    "relationships": {"project": {"to": "Project", "optional": true, "onDelete": "cascade", "inverse": "tasks"}}}
}}
"""

/// The one walk of the delete rules (``DeleteRuleWalk``), as both the store and a context run it.
@Suite("Delete rules: the walk")
struct DeleteRuleWalkTests {
    /// Department 1 named by employees b, a (nullify) and projects 2, 1 (cascade); project 2 named by tasks 3, 1
    /// (cascade); employee a names itself through `manager` (left alone: only `department` names the deleted one).
    private func graph() -> [ObjectKey: ObjectValues] {
        [ObjectKey(entity: "Department", id: .int(1)): ["name": "d"],
         ObjectKey(entity: "Employee", id: .string("b")): ["department": .int(1), "manager": .null],
         ObjectKey(entity: "Employee", id: .string("a")): ["department": .int(1), "manager": .string("a")],
         ObjectKey(entity: "Project", id: .int(2)): ["owner": .int(1)],
         ObjectKey(entity: "Project", id: .int(1)): ["owner": .int(1)],
         ObjectKey(entity: "Task", id: .int(3)): ["project": .int(2)],
         ObjectKey(entity: "Task", id: .int(1)): ["project": .int(2)]]
    }

    /// Deletes department 1 from `objects` and walks its rules; `extra` adds ids to every list of referrers.
    private func walk(_ objects: inout [ObjectKey: ObjectValues], changesMax: Int = .max,
                      extra: [ObjectID] = []) throws -> [String] {
        let schema = try Schema(jsonText: deleteRulesSchemaText)
        var log: [String] = []
        let deleted = ObjectKey(entity: "Department", id: .int(1))
        objects[deleted] = nil
        try DeleteRuleWalk(referringRelationships: DeleteRuleWalk.referringRelationships(in: schema)).run(
            from: deleted, changesMax: changesMax,
            referrers: { target, source, relationship in
                (objects.filter { $0.key.entity == source && $0.value[relationship.name].flatMap(ObjectID.init) == target.id }.map(\.key.id)
                 + extra).sorted()
            },
            values: { key in (objects[key], key) },
            apply: { consequence, key in
                objects[key] = consequence.after
                log.append("\(consequence.cascades ? "delete" : "nullify") \(key.entity) \(key.id.json.text) \(consequence.relationship.name)")
            })
        return log
    }

    @Test func entitiesThenRelationshipsThenIDsDepthFirst() throws {
        var objects = graph()
        // Employee before Project (code points); a cascaded project's tasks right after it; the referrers listed
        // when a target is deleted, each checked when its turn comes.
        #expect(try walk(&objects) == ["nullify Employee \"a\" department", "nullify Employee \"b\" department",
                                       "delete Project 1 owner", "delete Project 2 owner",
                                       "delete Task 1 project", "delete Task 3 project"])
        #expect(objects.keys.map(\.entity).sorted() == ["Employee", "Employee"])
        #expect(objects[ObjectKey(entity: "Employee", id: .string("a"))]?["manager"] == .string("a"))
    }

    @Test func theTransactionsRoomBoundsTheWalk() throws {
        var objects = graph()
        #expect(throws: ChangeResolver.Refusal.self) { try walk(&objects, changesMax: 5) }
        objects = graph()
        #expect(try walk(&objects, changesMax: 6).count == 6)
    }

    /// A referrer listed that is absent or names another object when its turn comes (deleted earlier, re-pointed, a
    /// digest collision of the index) is skipped.
    @Test func anObjectThatNoLongerNamesTheDeletedOneIsSkipped() throws {
        var objects = graph()
        objects[ObjectKey(entity: "Employee", id: .string("c"))] = ["department": .int(2)]
        #expect(try walk(&objects, extra: [.string("c"), .string("gone"), .int(9)]) == [
            "nullify Employee \"a\" department", "nullify Employee \"b\" department",
            "delete Project 1 owner", "delete Project 2 owner", "delete Task 1 project", "delete Task 3 project"])
        #expect(objects[ObjectKey(entity: "Employee", id: .string("c"))]?["department"] == .int(2))
    }
}
