@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// An observation of a ``ResultsController`` made by ``ResultsController/observe(_:)``: it lasts until you call
/// ``cancel()`` or release it, like a Combine `AnyCancellable` or GRDB's `DatabaseCancellable`.
///
/// Not `Sendable`: cancel or release it on the controller's isolation.
public final class ViewObservation {
    private var onCancel: (() -> Void)?

    package init(onCancel: @escaping () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the observation; the handler is not called again. Calling it twice does nothing.
    public func cancel() {
        let action = onCancel
        onCancel = nil
        action?()
    }

    deinit {
        onCancel?()
    }
}
