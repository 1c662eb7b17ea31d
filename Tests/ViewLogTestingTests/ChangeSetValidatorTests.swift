import Foundation
import Testing
import ViewLog
import ViewLogTesting

@Suite struct ChangeSetValidatorTests {
    static func snap(_ sections: [(String, [Int64])]) -> ViewSnapshot {
        ViewSnapshot(sections: sections.map { .init(value: .string($0.0), rows: $0.1.map { .int($0) }) })
    }

    static let before = snap([("A", [1, 2, 3]), ("C", [7])])
    static let after = snap([("A", [2, 3]), ("B", [1, 9])])
    /// 1 moves from A to the new section B, 9 is inserted, 7 and its section C are deleted, 3 is updated.
    static let valid = ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: [
        SectionChange(kind: .delete, index: 1, value: .string("C")),
        SectionChange(kind: .insert, index: 1, value: .string("B")),
    ], rowChanges: [
        .delete(.int(7), from: IndexPath(row: 0, section: 1), seq: 1),
        .insert(.int(9), to: IndexPath(row: 1, section: 1), seq: 1),
        .move(.int(1), from: IndexPath(row: 0, section: 0), to: IndexPath(row: 0, section: 1), seq: 1, changed: ["group"]),
        .update(.int(3), from: IndexPath(row: 2, section: 0), to: IndexPath(row: 1, section: 0), seq: 1, changed: ["note"]),
    ])

    @Test func acceptsAValidBatch() throws {
        try ChangeSetValidator.check(Self.valid, from: Self.before, to: Self.after)
        #expect(Self.valid.applied(to: Self.before) == Self.after)
    }

    /// Canary: the harness must catch a wrong change set, and say where.
    @Test func catchesAWrongIndex() {
        var rows = Self.valid.rowChanges
        rows[1] = .insert(.int(9), to: IndexPath(row: 0, section: 0), seq: 1)
        let wrong = ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: Self.valid.sectionChanges, rowChanges: rows)
        let problems = ChangeSetValidator.validate(wrong, from: Self.before, to: Self.after)
        #expect(!problems.isEmpty)
        #expect(problems.contains { $0.message.contains("[0,0]") })
        #expect(!ChangeSetValidator.validateSequential(wrong, from: Self.before, to: Self.after).isEmpty)
        #expect(wrong.applied(to: Self.before) != Self.after)
    }

    @Test func catchesAMissingSectionRowAndADuplicate() {
        let missing = ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: Self.valid.sectionChanges,
                                rowChanges: Array(Self.valid.rowChanges.dropFirst()))
        #expect(ChangeSetValidator.validate(missing, from: Self.before, to: Self.after).contains { $0.rule == "deleted section rows" })
        let twice = ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: Self.valid.sectionChanges,
                              rowChanges: Self.valid.rowChanges + [.update(.int(2), from: IndexPath(row: 1, section: 0), to: IndexPath(row: 0, section: 0), seq: 1, changed: ["x"]),
                                                                  .update(.int(2), from: IndexPath(row: 1, section: 0), to: IndexPath(row: 0, section: 0), seq: 1, changed: ["x"])])
        #expect(ChangeSetValidator.validate(twice, from: Self.before, to: Self.after).contains { $0.rule == "row at most once" })
    }

    @Test func catchesAMoveThatKeptItsPlace() {
        let before = Self.snap([("A", [1, 2, 3])])
        let after = Self.snap([("A", [1, 2, 3])])
        let needless = ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: [],
                                 rowChanges: [.move(.int(2), from: IndexPath(row: 1, section: 0), to: IndexPath(row: 1, section: 0), seq: 1, changed: ["rank"])])
        #expect(ChangeSetValidator.validate(needless, from: before, to: after).contains { $0.rule == "move rule" })
        let hidden = ChangeSet(from: 0, to: 1, isSectioned: true, sectionChanges: [],
                               rowChanges: [.update(.int(3), from: IndexPath(row: 2, section: 0), to: IndexPath(row: 0, section: 0), seq: 1, changed: ["rank"])])
        #expect(ChangeSetValidator.validate(hidden, from: before, to: Self.snap([("A", [3, 1, 2])])).contains { $0.rule == "move rule" })
    }

    @Test func rendersStableText() {
        #expect(ChangeSetRenderer.render(Self.valid) == """
            section - 1 "C"
            section + 1 "B"
            row - 7 [1,0]
            row + 9 [1,1]
            row > 1 [0,0] -> [1,0] changed: group
            row ~ 3 [0,2] -> [0,1] changed: note
            """)
        #expect(ChangeSetRenderer.render(Self.after) == "\"A\": 2 3\n\"B\": 1 9")
    }
}
