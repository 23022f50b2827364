import Glibc
import Synchronization

/// What a locked region of the manager takes out of its state: the app's closures, stream
/// continuations and anything else of the app's. It is let go of (continuations finished, the
/// rest released) only after the lock is released, because letting go may run the app's code (a
/// deinit, an `onTermination` handler), and that code may call the manager again.
///
/// The subscriber table can only remove what it holds into one of these, so nothing of the app's
/// can be dropped while the lock is held.
struct ReleasedAfterUnlock {
    private var values: [Any] = []
    private var endings: [() -> Void] = []

    /// Keeps `value` alive until the lock is released.
    mutating func keep(_ value: Any) { values.append(value) }

    /// Calls `finish` (a stream's ending) after the lock is released.
    mutating func finish(_ finish: @escaping @Sendable () -> Void) {
        endings.append(finish)
    }

    /// Finishes the streams, then releases everything kept.
    mutating func letGo() {
        for ending in endings { ending() }
        endings.removeAll()
        values.removeAll()
    }
}

/// The manager's state behind its one lock. The body of ``withLock(_:)`` may read and change the
/// state and returns values; whatever it removes of the app's goes into the bag it is handed,
/// which is emptied once the lock is released.
final class ManagerStateLock: Sendable {
    private let mutex: Mutex<ManagerState>

    init(_ state: sending ManagerState) { mutex = Mutex(state) }

    #if DEBUG
        /// The thread in a locked region, 0 for none: debug builds keep it, so that tests can
        /// check that nothing of the app's is called, yielded to or released under the lock.
        private let holder = Atomic<UInt>(0)

        /// True inside a locked region on the calling thread (debug builds; false otherwise).
        var isHeldByCurrentThread: Bool { holder.load(ordering: .relaxed) == UInt(pthread_self()) }

        private func locked<Result>(_ body: (inout ManagerState) throws -> Result) rethrows -> Result {
            try mutex.withLock { state in
                holder.store(UInt(pthread_self()), ordering: .relaxed)
                defer { holder.store(0, ordering: .relaxed) }
                return try body(&state)
            }
        }
    #else
        var isHeldByCurrentThread: Bool { false }

        private func locked<Result>(_ body: (inout ManagerState) throws -> Result) rethrows -> Result {
            try mutex.withLock { state in try body(&state) }
        }
    #endif

    func withLock<Result: Sendable>(
        _ body: (inout ManagerState, inout ReleasedAfterUnlock) throws -> Result
    ) rethrows -> Result {
        try withLock(body, beforeLettingGo: { _ in })
    }

    /// ``withLock(_:)``, with `beforeLettingGo` run on what the body returned once the lock is
    /// released and before anything is let go of: a run ends there, so that whoever hears of
    /// the end (a stream's reader) finds the backend stopped and may start it again.
    @discardableResult
    func withLock<Result: Sendable>(
        _ body: (inout ManagerState, inout ReleasedAfterUnlock) throws -> Result,
        beforeLettingGo: (Result) -> Void
    ) rethrows -> Result {
        var released = ReleasedAfterUnlock()
        defer { released.letGo() }
        let result = try locked { state in try body(&state, &released) }
        beforeLettingGo(result)
        return result
    }

    /// A locked read, or a change that removes nothing of the app's (the subscriber table cannot
    /// remove without a bag).
    func access<Result: Sendable>(_ body: (inout ManagerState) throws -> Result) rethrows -> Result {
        try locked(body)
    }
}

/// Everything a manager knows, owned by its ``ManagerStateLock``.
struct ManagerState: Sendable {
    var tracker: KeyboardTracker
    /// The keyboards visible as of the last emission routed.
    var visible = VisibleKeyboards()
    /// The emissions of the event under way, emptied and kept with their room for the next one:
    /// they hold none of the app's values, so they may be emptied under the lock.
    var emissions: [TrackerEmission] = []
    /// Which run is current and how far it got.
    var lifecycle = RunLifecycle()
    /// The run observations count for (see ``RunLifecycle/current``).
    var run: ManagerRun? { lifecycle.current }
    var paused = false
    /// The app whose keyboards count as local (``KeyboardManager/setAppIdentity(_:)``): kept here,
    /// once, and handed to each run the backend opens; a stop keeps it.
    var appIdentity = AppIdentity.currentProcess
    /// Whether a delegate was set (read instead of the weak reference itself, which would take
    /// and drop a strong reference to the app's object under the lock).
    var hasDelegate = false
    var subscribers = SubscriberTable()

    /// The visible keyboards, ordered by id.
    var sortedVisible: [KeyboardState] { visible.ordered }

    /// The kept emissions list, empty, taken out so that the tracker may fill it while the state
    /// is changed beside it.
    mutating func takeEmissions() -> [TrackerEmission] {
        var taken: [TrackerEmission] = []
        swap(&taken, &emissions)
        return taken
    }

    /// Forgets every keyboard and every stream (finished once the lock is released): a run ends.
    mutating func reset(into released: inout ReleasedAfterUnlock) {
        tracker.reset()
        visible.removeAll()
        subscribers.endStreams(into: &released)
    }
}
