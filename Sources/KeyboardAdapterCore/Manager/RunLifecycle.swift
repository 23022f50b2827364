/// A manager's runs as one state machine: which run is current and how far it got, with a stop
/// that comes during a start remembered. It lives in the manager's state, under its lock; each
/// transition returns what is to be done, and the manager does it once the lock is released. So
/// a backend's start and stop, a wait for a loop, and the app's callbacks never run under a lock,
/// and there is one place that says what may follow what.
///
///     idle ──start──▶ starting ──opened──▶ running ──stop / finished──▶ stopping ──ended──▶ idle
///                        │ └─stop: remembered, ended after opened─────────────▲
///                        └──openFailed──▶ idle
struct RunLifecycle: Sendable {
    enum Phase: Sendable {
        case idle
        /// The backend is starting on the run's loop; `stopAsked` when a stop came meanwhile.
        case starting(ManagerRun, stopAsked: Bool)
        case running(ManagerRun)
        /// The run is ending: its backend's stop on its loop, then the loop.
        case stopping(ManagerRun)
    }

    /// What the caller of a transition does next, with no lock held.
    enum Action: Sendable {
        case none
        /// Start the run's loop and the backend on it, then report ``opened(_:)`` (or
        /// ``openFailed(_:)``).
        case open(ManagerRun)
        /// End the run (its backend's stop on its loop, then the loop), then report ``ended(_:)``.
        /// Ending a run twice is harmless: the second does nothing.
        case end(ManagerRun)
        /// Another thread is ending this run: wait until it has (then a start tries again).
        case awaitEnd(ManagerRun)
        /// The run is up: hand on what its backend saw while it started.
        case release(ManagerRun)
    }

    private(set) var phase: Phase = .idle

    /// The run that observations count for: starting or running, and not asked to stop.
    var current: ManagerRun? {
        switch phase {
        case .starting(let run, stopAsked: false), .running(let run): run
        default: nil
        }
    }

    /// A start. A run already starting or running is left as it is. One that is ending must have
    /// ended first: another thread's end is waited for; an end queued on this very thread's loop
    /// (a callback that starts again while another thread stops) is done now, since waiting for
    /// it would wait for the callback itself.
    mutating func start(making run: () throws -> ManagerRun) rethrows -> Action {
        switch phase {
        case .idle:
            let new = try run()
            phase = .starting(new, stopAsked: false)
            return .open(new)
        case .starting(_, stopAsked: false), .running:
            return .none
        case .starting(let run, stopAsked: true):
            // Ends right after its start returns, on its loop.
            return run.loop.isCurrent ? .none : .awaitEnd(run)
        case .stopping(let run):
            return run.loop.isCurrent ? .end(run) : .awaitEnd(run)
        }
    }

    /// A stop, by the app. A running run ends; a starting one ends as soon as its backend's start
    /// returns; from another thread the stop then waits for that end.
    mutating func stop() -> Action {
        switch phase {
        case .idle:
            return .none
        case .starting(let run, _):
            phase = .starting(run, stopAsked: true)
            return run.loop.isCurrent ? .none : .awaitEnd(run)
        case .running(let run):
            phase = .stopping(run)
            return .end(run)
        case .stopping(let run):
            return run.loop.isCurrent ? .end(run) : .awaitEnd(run)
        }
    }

    /// The backend's start returned, on the run's loop.
    mutating func opened(_ run: ManagerRun) -> Action {
        guard case .starting(let starting, let stopAsked) = phase, starting === run else { return .end(run) }
        if stopAsked {
            phase = .stopping(run)
            return .end(run)
        }
        phase = .running(run)
        return .release(run)
    }

    /// The run's loop or its backend's start failed.
    mutating func openFailed(_ run: ManagerRun) -> Action {
        if case .starting(let starting, _) = phase, starting === run { phase = .idle }
        return .end(run)
    }

    /// The backend ended by itself (it failed, or a recording ended), on the run's loop.
    mutating func finished(_ run: ManagerRun) -> Action {
        guard case .running(let running) = phase, running === run else { return .none }
        phase = .stopping(run)
        return .end(run)
    }

    /// The run's end is done: its backend stopped, its loop ended.
    mutating func ended(_ run: ManagerRun) {
        switch phase {
        case .stopping(let stopping) where stopping === run: phase = .idle
        case .starting(let starting, _) where starting === run: phase = .idle
        default: break
        }
    }
}
