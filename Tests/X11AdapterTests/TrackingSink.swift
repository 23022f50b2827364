import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport

/// A sink that runs the backend's observations through a real `KeyboardTracker`, as the manager
/// does, and keeps every observation and every update for the test to assert on. The tracker's
/// settle timers are driven by the waits: each look first settles everything due by now.
final class TrackingSink: ObservationSink {
    struct State {
        var tracker: KeyboardTracker
        var observations: [Observation] = []
        var updates: [KeyboardUpdate] = []
        var failures: [BackendFailure?] = []
        /// The most keyboards visible at once, after any update.
        var mostVisible = 0
    }

    let state: Mutex<State>

    init(settleInterval: Double = 0.05) {
        state = Mutex(State(tracker: KeyboardTracker(backendName: "x11", settleInterval: settleInterval)))
    }

    func deliver(_ observation: Observation) {
        state.withLock { state in
            state.observations.append(observation)
            record(state.tracker.ingest(observation), into: &state)
        }
    }

    func nextDeadline() -> Double? { state.withLock { $0.tracker.nextDeadline } }

    func advance(to time: Double) {
        state.withLock { state in record(state.tracker.advance(to: time), into: &state) }
    }

    func finish(failure: BackendFailure?) {
        state.withLock { state in
            state.failures.append(failure)
            record(state.tracker.hideAll(at: MonotonicClock.now()), into: &state)
        }
    }

    private func record(_ emissions: [TrackerEmission], into state: inout State) {
        for case .update(let update) in emissions {
            state.updates.append(update)
        }
        if !emissions.isEmpty { state.mostVisible = max(state.mostVisible, state.tracker.visibleKeyboards.count) }
    }

    /// Settles what is due by now, then returns the updates.
    var updates: [KeyboardUpdate] {
        advance(to: MonotonicClock.now())
        return state.withLock { $0.updates }
    }

    /// The updates after the first `index` ones.
    func updates(since index: Int) -> [KeyboardUpdate] { Array(updates.dropFirst(index)) }

    /// The number of updates so far: a mark to take the updates of one step with `updates(since:)`.
    var mark: Int { updates.count }

    var observations: [Observation] { state.withLock { $0.observations } }
    var failures: [BackendFailure?] { state.withLock { $0.failures } }
    var visible: [KeyboardState] {
        advance(to: MonotonicClock.now())
        return state.withLock { $0.tracker.visibleKeyboards }
    }
    var mostVisible: Int { state.withLock { $0.mostVisible } }

    /// Waits until the updates after `mark` satisfy `condition`, then a little longer (so that
    /// anything extra would show up), and returns them.
    @discardableResult
    func waitForUpdates(
        _ what: String, since mark: Int, timeout: Double = 10, quiet: Double = 0.3,
        _ condition: ([KeyboardUpdate]) -> Bool
    ) throws -> [KeyboardUpdate] {
        do {
            try Wait.require(what, timeout: timeout) { condition(updates(since: mark)) }
        } catch {
            throw TestFailure("\(error); updates were:\n" + describe(updates(since: mark)))
        }
        Thread.sleep(forTimeInterval: quiet)
        return updates(since: mark)
    }

    /// Waits until the updates after `mark` end with `events` (and no pending transition is left),
    /// and returns them.
    @discardableResult
    func waitForEvents(
        _ events: [KeyboardEvent], since mark: Int, _ what: String, timeout: Double = 10, quiet: Double = 0.3
    ) throws -> [KeyboardUpdate] {
        try waitForUpdates(what, since: mark, timeout: timeout, quiet: quiet) { updates in
            updates.count >= events.count && updates.suffix(events.count).map(\.event) == events
        }
    }
}

/// One update per line, for failure messages.
func describe(_ updates: [KeyboardUpdate]) -> String {
    updates.map {
        "  \($0.event) \($0.keyboard) begin \($0.beginFrame) end \($0.endFrame) dur \(String(format: "%.3f", $0.animationDuration)) docked \($0.isDocked) \($0.dockedEdge?.rawValue ?? "-")"
    }.joined(separator: "\n")
}

/// The X window id in a keyboard id such as `x11:0x1c00003`.
func windowID(_ keyboard: KeyboardIdentity) throws -> UInt {
    guard keyboard.id.hasPrefix("x11:0x"), let id = UInt(keyboard.id.dropFirst(6), radix: 16) else {
        throw TestFailure("not an X11 keyboard id: \(keyboard.id)")
    }
    return id
}
