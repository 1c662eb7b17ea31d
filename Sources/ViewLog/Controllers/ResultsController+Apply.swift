@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews

extension ResultsController {
    /// What of the rows the view shows: its window and whether it has sections.
    var shape: ViewShape {
        ViewShape(offset: fetchRequest.offset, limit: fetchRequest.limit, isSectioned: isSectioned)
    }

    /// Computes one batch and updates the rows (``OrderedRows/applyBatch(_:entity:shape:membership:hidesQuantifierResults:scratch:)``):
    /// O(k log n) for k touched objects of the entity. A view with no rows and no window is filled at once
    /// (``OrderedRows/fillEmpty(_:entity:shape:membership:)``) unless a test turned that off.
    func computeChangeSet(_ delta: Delta) -> ChangeSet {
        let shape = self.shape
        if rows.count == 0, shape.isWhole, fillsEmptyViewAtOnce {
            return rows.fillEmpty(delta, entity: entity.name, shape: shape, membership: membership)
        }
        // A quantifier's result decides membership only: it is not a value a row shows (DESIGN §10).
        return rows.applyBatch(delta, entity: entity.name, shape: shape, membership: membership,
                               hidesQuantifierResults: relational != nil, scratch: &scratch)
    }
}
