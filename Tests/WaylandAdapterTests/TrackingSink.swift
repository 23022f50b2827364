import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport

/// A sink that runs the backend's observations through a `KeyboardTracker`, the way the manager
/// does, and keeps both for assertions. Settle timers are driven by the waits.
final class TrackingSink: ObservationSink {
    private struct State {
        var tracker: KeyboardTracker
        var observations: [Observation] = []
        var updates: [KeyboardUpdate] = []
        var finished: [BackendFailure?] = []
    }

    private let state: Mutex<State>

    init(settleInterval: Double = 0.05) {
        state = Mutex(State(tracker: KeyboardTracker(backendName: "wayland", settleInterval: settleInterval)))
    }

    func deliver(_ observation: Observation) {
        state.withLock { s in
            s.observations.append(observation)
            s.updates += Self.updates(s.tracker.ingest(observation))
        }
    }

    func nextDeadline() -> Double? { state.withLock { $0.tracker.nextDeadline } }

    func advance(to time: Double) {
        state.withLock { s in s.updates += Self.updates(s.tracker.advance(to: time)) }
    }

    func finish(failure: BackendFailure?) {
        state.withLock { $0.finished.append(failure) }
    }

    private static func updates(_ emissions: [TrackerEmission]) -> [KeyboardUpdate] {
        emissions.compactMap { if case .update(let update) = $0 { update } else { nil } }
    }

    var observations: [Observation] { state.withLock { $0.observations } }
    var updates: [KeyboardUpdate] { state.withLock { $0.updates } }
    var finished: [BackendFailure?] { state.withLock { $0.finished } }
    var events: [KeyboardEvent] { updates.map(\.event) }

    /// Waits until `count` updates have arrived, settling timers as the manager would.
    func waitForUpdates(_ count: Int, _ what: String, timeout: Double = 10) throws {
        try Wait.require("\(what) (\(count) keyboard events; have \(events))", timeout: timeout) {
            advance(to: MonotonicClock.now())
            return updates.count >= count
        }
    }
}
