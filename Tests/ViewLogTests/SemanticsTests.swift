import Foundation
import Testing
import TestSupport
import ViewLogTesting
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Semantics through the library: string identity by code point, the null section's
/// name, updates that set nothing, `IN` with null, and the one date range.
@Suite("Semantics")
struct SemanticsTests {
    static let composed = "\u{e9}"  // é as one scalar
    static let decomposed = "e\u{301}"  // e + COMBINING ACUTE ACCENT: canonically equivalent, other code points

    static let schemaText = """
    {"entities": {"Item": {"id": "string", "attributes": {
      "label": {"type": "string", "optional": true}, "score": {"type": "double", "optional": true},
      "at": {"type": "date", "optional": true}}}}}
    """

    /// A new store, removed when `body` returns or throws.
    static func withStore(_ body: (LogStore) throws -> Void) throws {
        let path = newStorePath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try Schema(jsonText: schemaText), options: StoreOptions(durable: false))
        try body(store)
    }

    static func key(_ id: String) -> ObjectKey { ObjectKey(entity: "Item", id: .string(id)) }

    // MARK: code-point identity

    @Test func valuesAndIDsAreEqualByCodePoint() {
        #expect(Value.string(Self.composed) != Value.string(Self.decomposed))
        #expect(ObjectID.string(Self.composed) != ObjectID.string(Self.decomposed))
        #expect(Set([Value.string(Self.composed), .string(Self.decomposed)]).count == 2)
        #expect(Set([ObjectID.string(Self.composed), .string(Self.decomposed)]).count == 2)
        #expect(Set([Self.key(Self.composed), Self.key(Self.decomposed)]).count == 2)
        #expect(Value.double(-0.0) == .double(0.0))
        #expect(Set([Value.double(-0.0), .double(0.0)]).count == 1)
        #expect(Value.string("a") == .string("a") && Value.int(1) != .double(1))
    }

    @Test func canonicallyEquivalentIDsAreTwoObjects() throws {
        // In two saves …
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            try context.insert("Item", id: .string(Self.composed), values: ["label": .string("one")])
            try context.save()
            try context.insert("Item", id: .string(Self.decomposed), values: ["label": .string("two")])
            try context.save()
            #expect(try store.object(Self.key(Self.composed))?["label"] == .string("one"))
            #expect(try store.object(Self.key(Self.decomposed))?["label"] == .string("two"))
            let controller = try context.makeResultsController(FetchRequest(entity: "Item"))
            #expect(controller.fetchedObjects == [.string(Self.decomposed), .string(Self.composed)])  // "e" < "é"
            #expect(try store.verify().isOK)
        }
        // … and in one.
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            try context.insert("Item", id: .string(Self.composed), values: [:])
            try context.insert("Item", id: .string(Self.decomposed), values: [:])
            try context.save()
            #expect(try context.objects(of: "Item").count == 2)
            #expect(try store.verify().isOK)
        }
    }

    @Test func anUpdateToACanonicallyEquivalentStringIsAChange() throws {
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            try context.insert("Item", id: "a", values: ["label": .string(Self.decomposed)])
            try context.save()
            let controller = try context.makeResultsController(FetchRequest(entity: "Item", sortDescriptors: [try ViewSortDescriptor.parse("label")[0]]))
            let recorder = ChangeRecorder()
            recorder.attach(to: controller)
            try context.update("Item", id: "a", values: ["label": .string(Self.composed)])
            try context.save()
            let batch = try #require(recorder.batches.last)
            #expect(batch.rowChanges.map(\.kind) == [.update])
            #expect(batch.rowChanges.first?.changed == ["label"])
            guard case .string(let stored)? = try store.object(Self.key("a"))?["label"] else { Issue.record("no label"); return }
            #expect(Array(stored.utf8) == Array(Self.composed.utf8))
            #expect(try store.verify().isOK)
        }
    }

    @Test func canonicallyEquivalentSectionsAreTwoSectionsWithValidChanges() throws {
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            try context.insert("Item", id: "a", values: ["label": .string(Self.decomposed)])
            try context.save()
            let controller = try context.makeResultsController(
                FetchRequest(entity: "Item", sortDescriptors: [try ViewSortDescriptor.parse("label")[0]], sectionKey: "label"))
            let recorder = ChangeRecorder()
            recorder.attach(to: controller)
            var before = controller.snapshot
            try context.insert("Item", id: "b", values: ["label": .string(Self.composed)])
            try context.save()
            #expect(controller.sections.map(\.name) == [Self.decomposed, Self.composed])
            expectValid(try #require(recorder.batches.last), from: before, to: controller.snapshot)
            before = controller.snapshot
            try context.update("Item", id: "a", values: ["label": .string(Self.composed)])
            try context.save()
            #expect(controller.sections.count == 1)
            expectValid(try #require(recorder.batches.last), from: before, to: controller.snapshot)
        }
    }

    // MARK: section names

    @Test func theNullSectionHasNoNameAndEqualValuesOneName() throws {
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            try context.insert("Item", id: "a", values: ["label": .null, "score": .double(-0.0)])
            try context.insert("Item", id: "b", values: ["label": .string("null"), "score": .double(0.0)])
            try context.save()
            let byLabel = try context.makeResultsController(
                FetchRequest(entity: "Item", sortDescriptors: [try ViewSortDescriptor.parse("label")[0]], sectionKey: "label"))
            #expect(byLabel.sections.map(\.name) == [nil, "null"])
            #expect(byLabel.sections.map(\.indexTitle) == [nil, "N"])
            let byScore = try context.makeResultsController(
                FetchRequest(entity: "Item", sortDescriptors: [try ViewSortDescriptor.parse("score")[0]], sectionKey: "score"))
            #expect(byScore.sections.map(\.name) == ["0.0"])
            #expect(byScore.sections.map(\.numberOfObjects) == [2])
            let unsectioned = try context.makeResultsController(FetchRequest(entity: "Item"))
            #expect(unsectioned.sections.map(\.name) == [nil])
            #expect(Value.null.sectionName == nil && Value.string("null").sectionName == "null")
            #expect(Value.double(-0.0).sectionName == "0.0")
        }
    }

    // MARK: an update that sets nothing

    @Test func anUpdateThatSetsNothingIsRefused() throws {
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            try context.insert("Item", id: "a", values: [:])
            try context.save()
            #expect(throws: StoreError.self) { try context.update("Item", id: "a", values: [:]) }
            #expect(throws: StoreError.self) { try store.append([.update(entity: "Item", id: "a", values: [:])], author: "t") }
            #expect(try store.head == 1)
        }
        let schema = try Schema(jsonText: Self.schemaText)
        #expect(throws: InputError.self) {
            try AppendInput.parse(#"{"update": "Item", "id": "a", "values": {}}"#, schema: schema)
        }
        #expect(throws: InputError.self) {
            try AppendInput.shorthand(op: "update", entity: "Item", id: "a", assignments: [], schema: schema)
        }
    }

    @Test func appendAndImportReadLinesOneWay() throws {
        var lines = InputLines("\r\n{\"a\": 1}\r\n  \n\t\r\n[2]")
        var read: [Int] = []
        while let (line, _) = try lines.next() { read.append(line) }
        #expect(read == [2, 5])
        var bad = InputLines("\u{a0}\n")
        #expect(throws: InputError.self) { _ = try bad.next() }
    }

    // MARK: IN and null

    @Test func nullIsInNoList() throws {
        let entity = try Schema(jsonText: Self.schemaText).entity(named: "Item")
        let nulls: ObjectValues = ["label": .null, "score": .null, "at": .null]
        for format in ["score IN {NIL}", "label IN {'x', NIL}", "label IN[c] {'x', NIL}", "id IN {'q', NIL}"] {
            #expect(try !ViewPredicate(format).compiled(for: entity).evaluate(nulls, id: .string("a")), "\(format)")
        }
        #expect(try ViewPredicate("NOT label IN {NIL}").compiled(for: entity).evaluate(nulls, id: .string("a")))
        #expect(try ViewPredicate("label IN {'x', NIL}").compiled(for: entity).evaluate(["label": .string("x")], id: .string("a")))
    }

    static func eval(_ format: String, _ label: String) throws -> Bool {
        let entity = try Schema(jsonText: Self.schemaText).entity(named: "Item")
        return try ViewPredicate(format).compiled(for: entity).evaluate(["label": .string(label)], id: .string("a"))
    }

    /// A combining mark right after a metacharacter is a literal code point, as in ICU.
    @Test func matchesTakesCombiningMarksAfterMetacharacters() throws {
        #expect(try Self.eval("label MATCHES '.\u{301}x'", "e\u{301}x"))
        #expect(try !Self.eval("label MATCHES '.\u{301}x'", "\u{e9}x"))
        #expect(try Self.eval("label MATCHES '[ab]\u{301}'", "a\u{301}"))
        #expect(try Self.eval("label MATCHES '(a)\u{301}+'", "a\u{301}\u{301}"))
        #expect(try Self.eval("label MATCHES 'a+\u{301}'", "aa\u{301}"))
        #expect(try Self.eval("label MATCHES '^\u{301}'", "\u{301}"))
        #expect(try Self.eval("label MATCHES '\\\\\u{301}a'", "\u{301}a"))
        #expect(try Self.eval("label MATCHES '\\\\Qa\u{301}\\\\E'", "a\u{301}"))
    }

    /// `[d]` folds the needle too: one made only of combining marks is empty, so every string contains it.
    @Test func containsWithANeedleOfCombiningMarks() throws {
        for op in ["CONTAINS[cd]", "CONTAINS[d]", "BEGINSWITH[d]", "ENDSWITH[cd]"] {
            #expect(try Self.eval("label \(op) '\u{301}'", "abc"), "\(op)")
            #expect(try Self.eval("label \(op) '\u{301}\u{308}'", ""), "\(op)")
        }
        #expect(try Self.eval("label CONTAINS '\u{301}'", "e\u{301}"))
        #expect(try !Self.eval("label CONTAINS '\u{301}'", "\u{e9}"))
        #expect(try !Self.eval("label CONTAINS '\u{301}'", "abc"))
    }

    // MARK: dates

    @Test func oneDateRangeCheckedAtTheInput() throws {
        #expect(Timestamp(iso8601: "9999-12-31T23:00:00-01:00") == nil)
        #expect(Timestamp(iso8601: "0001-01-01T00:30:00+01:00") == nil)
        #expect(Timestamp(iso8601: "9999-12-31T23:59:59.999Z")?.milliseconds == Timestamp.range.upperBound)
        #expect(Timestamp(iso8601: "0001-01-01T00:00:00Z")?.milliseconds == Timestamp.range.lowerBound)
        try Self.withStore { store in
            let context = try Context(store: store, name: "t")
            let past = Timestamp(milliseconds: Timestamp.range.upperBound + 1)
            #expect(throws: StoreError.self) { try context.insert("Item", id: "a", values: ["at": .date(past)]) }
        }
        let entity = try Schema(jsonText: Self.schemaText).entity(named: "Item")
        #expect(throws: QueryError.self) { try ViewPredicate("at < '9999-12-31T23:00:00-01:00'").compiled(for: entity) }
    }

    /// Everything the output writes, the input reads: the range's edges and random times in it round-trip.
    @Test func everyStorableDateRoundTrips() {
        var rng = SeededGenerator(seed: 14_9)
        let r = Timestamp.range
        var samples: [Int64] = [r.lowerBound, r.lowerBound + 1, r.upperBound, r.upperBound - 1, 0, -1, 951_782_400_000]
        for _ in 0..<2000 { samples.append(Int64.random(in: r, using: &rng)) }
        for ms in samples {
            let t = Timestamp(milliseconds: ms)
            #expect(Timestamp(iso8601: t.iso8601) == t, "\(t.iso8601)")
        }
        for ms in [r.lowerBound - 1, r.upperBound + 1] {
            #expect(Timestamp(iso8601: Timestamp(milliseconds: ms).iso8601) == nil)
        }
    }

    /// Every `Int64` has a text, never a trap: a damaged entry resealed with a date far outside the range is
    /// still shown by `viewlog log` (`Int64.min` must not overflow the floor division).
    @Test func everyInt64MillisecondHasAText() {
        #expect(Timestamp(milliseconds: .min).iso8601 == "-292275055-05-16T16:47:04.192Z")
        #expect(Timestamp(milliseconds: .max).iso8601 == "292278994-08-17T07:12:55.807Z")
        #expect(Timestamp(milliseconds: -1).iso8601 == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(milliseconds: -86_400_000).iso8601 == "1969-12-31T00:00:00.000Z")
    }
}
