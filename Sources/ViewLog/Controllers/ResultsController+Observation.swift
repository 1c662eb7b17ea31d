import Observation

/// A results controller is observable with Swift's Observation (`withObservationTracking`, SwiftUI's `@Observable`
/// views): reading ``sections`` or ``fetchedObjects`` inside a tracking closure registers the read, and every batch
/// or reload the controller reports (the delegate's and ``changes``' events) is a change of both — code written for
/// SwiftData's observed models reacts without a delegate. The delegate, ``observe(_:)`` and ``changes`` stay as they
/// are.
extension ResultsController: Observable {
    /// Registers a read of the rows for the caller's observation tracking.
    func accessRows() {
        rowsRead = true
        observationRegistrar.access(self, keyPath: \.sections)
        observationRegistrar.access(self, keyPath: \.fetchedObjects)
    }

    /// Tells observers that a batch or a reload changed the rows.
    func changedRows() {
        guard rowsRead else { return }
        observationRegistrar.willSet(self, keyPath: \.sections)
        observationRegistrar.didSet(self, keyPath: \.sections)
        observationRegistrar.willSet(self, keyPath: \.fetchedObjects)
        observationRegistrar.didSet(self, keyPath: \.fetchedObjects)
    }
}
