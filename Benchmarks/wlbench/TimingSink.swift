import KeyboardAdapterCore
import Synchronization

/// Runs observations through a `KeyboardTracker`, as the manager does, and timestamps each
/// `will` event the moment the tracker emits it.
final class TimingSink: ObservationSink {
    private let tracker = Mutex(KeyboardTracker(backendName: "wayland", settleInterval: 0.05))
    /// Each `will` event with its monotonic time.
    let wills = Mutex<[(event: KeyboardEvent, time: Double)]>([])

    func deliver(_ observation: Observation) {
        let emissions = tracker.withLock { $0.ingest(observation) }
        let now = MonotonicClock.now()
        for case .update(let update) in emissions where update.event.isWill {
            wills.withLock { $0.append((update.event, now)) }
        }
    }

    func nextDeadline() -> Double? { tracker.withLock { $0.nextDeadline } }

    func advance(to time: Double) { _ = tracker.withLock { $0.advance(to: time) } }

    func finish(failure: BackendFailure?) {}
}
