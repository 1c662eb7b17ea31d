import Testing
import TestSupport
import ViewLogTesting
@_spi(Engine) @_spi(Testing) @testable import ViewLog
@_spi(Engine) @_spi(Testing) @testable import ViewLogModel
@_spi(Engine) @_spi(Testing) @testable import ViewLogQuery
@_spi(Engine) @_spi(Testing) @testable import ViewLogStore
@_spi(Engine) @_spi(Testing) @testable import ViewLogViews

@Suite struct EmptyViewFillTests {
    static let seed = ViewTestRNG.seed(default: 0xF111)

    /// A batch into a view with no rows and no window is built at once (one sort): the same change set and view
    /// as the general path, row by row, for random views and batches of up to 30 transactions — from an empty
    /// store and from objects none of which the view shows.
    @Test func fillingAnEmptyViewAtOnceIsTheGeneralBatch() throws {
        var rng = ViewTestRNG(seed: Self.seed)
        var filled = 0
        for viewNumber in 0..<200 {
            var spec = ViewsRandom.view(&rng)
            if rng.chance(0.7) { spec.request.limit = nil; spec.request.offset = 0 }
            var model = ViewModel()
            if rng.chance(0.5) {
                for _ in 0..<rng.int(1...5) { model.commit(ViewsRandom.transaction(model.current, idPool: 30, maxOps: 5, &rng)) }
            }
            let start = model.head
            for _ in 0..<rng.int(1...30) { model.commit(ViewsRandom.transaction(model.current, idPool: 30, maxOps: 5, &rng)) }
            let atOnce = try spec.controller(model, entity: ViewsRandom.employee, at: start)
            guard atOnce.numberOfRows == 0 else { continue }
            let general = try spec.controller(model, entity: ViewsRandom.employee, at: start)
            general.fillsEmptyViewAtOnce = false
            let delta = model.delta(from: start, to: model.head)
            let (a, b) = (atOnce.apply(delta), general.apply(delta))
            #expect(a == b, "seed \(Self.seed) view \(viewNumber) [\(spec)]:\n\(ChangeSetRenderer.render(a, seq: true))\nagainst\n\(ChangeSetRenderer.render(b, seq: true))")
            #expect(atOnce.snapshot == general.snapshot, "seed \(Self.seed) view \(viewNumber) [\(spec)]")
            atOnce.checkInvariants()
            if spec.request.limit == nil && spec.request.offset == 0 && !a.isEmpty { filled += 1 }
        }
        #expect(filled > 50, "views filled at once: \(filled)")
    }
}
