import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import Synchronization

/// A sink that runs a backend's observations through a real `KeyboardTracker`, as the manager
/// does, and keeps every observation and every update for the test to assert on. The tracker's
/// settle timers are driven by the waits: each look first settles everything due by now.
public final class TrackingSink: ObservationSink {
    struct State {
        var tracker: KeyboardTracker
        var observations: [KeyboardObservation] = []
        var updates: [KeyboardUpdate] = []
        /// Intermediate frames, each with the number of updates before it.
        var progress: [(afterUpdates: Int, progress: KeyboardProgress)] = []
        var failures: [BackendFailure?] = []
        /// The most keyboards visible at once, after any update.
        var mostVisible = 0
    }

    private let state: Mutex<State>

    /// A sink whose tracker names `backendName` on its updates and settles after `settleInterval`.
    public init(backendName: String, settleInterval: Double = 0.05) {
        state = Mutex(State(tracker: KeyboardTracker(backendName: backendName, settleInterval: settleInterval)))
    }

    /// Records the observation and what the tracker makes of it.
    public func deliver(_ observation: KeyboardObservation) {
        state.withLock { state in
            state.observations.append(observation)
            record(state.tracker.ingest(observation), into: &state)
        }
    }

    /// The tracker's next deadline.
    public func nextDeadline() -> Double? { state.withLock { $0.tracker.nextDeadline } }

    /// Settles what is due by `time`.
    public func advance(to time: Double) {
        state.withLock { state in record(state.tracker.advance(to: time), into: &state) }
    }

    /// Records the end, hiding what is visible (as the manager does for a lost server).
    public func finish(failure: BackendFailure?) {
        state.withLock { state in
            state.failures.append(failure)
            record(state.tracker.hideAll(at: MonotonicClock.now()), into: &state)
        }
    }

    private func record(_ emissions: [TrackerEmission], into state: inout State) {
        for emission in emissions {
            switch emission {
            case .update(let update): state.updates.append(update)
            case .progress(let progress): state.progress.append((state.updates.count, progress))
            case .layoutChanged: continue
            }
        }
        if !emissions.isEmpty { state.mostVisible = max(state.mostVisible, state.tracker.visibleKeyboards.count) }
    }

    /// Settles what is due by now, then returns the updates.
    public var updates: [KeyboardUpdate] {
        advance(to: MonotonicClock.now())
        return state.withLock { $0.updates }
    }

    /// The updates after the first `index` ones.
    public func updates(since index: Int) -> [KeyboardUpdate] { Array(updates.dropFirst(index)) }

    /// The number of updates so far: a mark to take the updates of one step with `updates(since:)`.
    public var mark: Int { updates.count }

    /// The intermediate frames that came after update number `index` (counted from 1) and before
    /// the next one: the frames between a `will` at that index and its `did`.
    public func progress(afterUpdate index: Int) -> [KeyboardProgress] {
        advance(to: MonotonicClock.now())
        return state.withLock { $0.progress.filter { $0.afterUpdates == index }.map(\.progress) }
    }

    /// Every observation delivered.
    public var observations: [KeyboardObservation] { state.withLock { $0.observations } }
    /// How the backend ended, each time it did.
    public var failures: [BackendFailure?] { state.withLock { $0.failures } }
    /// The keyboards visible now (after settling what is due).
    public var visible: [KeyboardState] {
        advance(to: MonotonicClock.now())
        return state.withLock { $0.tracker.visibleKeyboards }
    }
    /// The most keyboards visible at once so far.
    public var mostVisible: Int { state.withLock { $0.mostVisible } }

    /// Waits until the updates after `mark` satisfy `condition`, then a little longer (so that
    /// anything extra would show up), and returns them.
    @discardableResult
    public func waitForUpdates(
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
    public func waitForEvents(
        _ events: [KeyboardEvent], since mark: Int, _ what: String, timeout: Double = 10, quiet: Double = 0.3
    ) throws -> [KeyboardUpdate] {
        try waitForUpdates(what, since: mark, timeout: timeout, quiet: quiet) { updates in
            updates.count >= events.count && updates.suffix(events.count).map(\.event) == events
        }
    }
}

extension TrackingSink {
    /// The events so far, in order.
    public var events: [KeyboardEvent] { updates.map(\.event) }

    /// Waits until `count` updates have arrived, settling timers as the manager would.
    public func waitForUpdates(_ count: Int, _ what: String, timeout: Double = 10) throws {
        try Wait.require("\(what) (\(count) keyboard events; have \(events))", timeout: timeout) {
            updates.count >= count
        }
    }
}

/// One update per line, for failure messages.
public func describe(_ updates: [KeyboardUpdate]) -> String {
    updates.map {
        "  \($0.event) \($0.keyboard) begin \($0.beginFrame) end \($0.endFrame) dur \(String(format: "%.3f", $0.animationDuration)) docked \($0.isDocked) \($0.dockedEdge?.rawValue ?? "-")"
    }.joined(separator: "\n")
}
