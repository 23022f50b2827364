import Synchronization

/// One run of a manager: the loop its backend runs on, from ``KeyboardManager/start()`` to a
/// stop or the backend's end. The sink and the settle source name their session, so that nothing
/// from an earlier run reaches a later one.
final class ManagerSession: Sendable {
    let loop: KeyboardRunLoop

    private struct Progress: Sendable {
        /// The backend's start returned.
        var started = false
        /// A stop came: the backend is not to start, or is to stop once started.
        var ended = false
    }
    private let progress = Mutex(Progress())

    /// The tracker's earliest settle deadline as of its last change (the bits of a `Double`, NaN
    /// for none): what the settle source tells the loop before every wait, read without taking
    /// the manager's lock. Written on the loop's thread whenever the tracker changes there; a
    /// value left behind by a stop costs at most one turn, whose call puts it right.
    private let cachedDeadline = Atomic<UInt64>(Double.nan.bitPattern)

    init(loop: KeyboardRunLoop) { self.loop = loop }

    /// See `cachedDeadline`.
    var settleDeadline: Double? {
        get {
            let value = Double(bitPattern: cachedDeadline.load(ordering: .relaxed))
            return value.isNaN ? nil : value
        }
        set { cachedDeadline.store((newValue ?? .nan).bitPattern, ordering: .relaxed) }
    }

    /// Starts the backend on the loop's thread, unless the session already ended. A stop that
    /// comes while the backend is starting stops it as soon as the start returns.
    func begin(backend: any KeyboardBackend, start: @escaping @Sendable (LoopContext) throws -> Void) throws {
        try loop.performAndWait { [self] context in
            guard !progress.withLock({ $0.ended }) else { return }
            try start(context)
            let endedMeanwhile = progress.withLock { progress in
                progress.started = true
                return progress.ended
            }
            if endedMeanwhile { backend.stop() }
        }
    }

    /// Stops the backend (on the loop's thread) and then the loop; from another thread, returns
    /// once the loop made its last call. Idempotent.
    func end(backend: any KeyboardBackend) {
        let stopBackend: @Sendable () -> Void = { [self] in
            let started = progress.withLock { progress in
                defer { progress.ended = true }
                return progress.started && !progress.ended
            }
            if started { backend.stop() }
        }
        if loop.isCurrent { stopBackend() } else { loop.perform(stopBackend) }
        loop.stop()
    }
}

/// The sink a manager gives its backend for one session. On the loop's thread an observation is
/// processed at once; from any other thread (an in-memory backend fed by a test) it is handed to
/// the loop, so processing stays on one thread and in order.
struct ManagerSink: ObservationSink {
    let manager: WeakManager
    let session: ManagerSession

    func deliver(_ observation: KeyboardObservation) {
        if session.loop.isCurrent {
            manager.value?.ingest(observation, session: session)
        } else {
            session.loop.perform { [manager, session] in manager.value?.ingest(observation, session: session) }
        }
    }

    func finish(failure: BackendFailure?) {
        if session.loop.isCurrent {
            manager.value?.finish(failure: failure, session: session)
        } else {
            session.loop.perform { [manager, session] in manager.value?.finish(failure: failure, session: session) }
        }
    }
}

/// The tracker's settle deadlines as a loop source: no descriptor, no timer object, just the
/// earliest deadline, which becomes the loop's poll timeout.
final class SettleSource: LoopSource, Sendable {
    let manager: WeakManager
    let session: ManagerSession

    init(manager: WeakManager, session: ManagerSession) {
        self.manager = manager
        self.session = session
    }

    /// The tracker's next deadline, as the manager last left it (no lock taken).
    var deadline: Double? { session.settleDeadline }

    func deadlineReached() {
        guard let manager = manager.value, let deadline = manager.nextDeadline(session: session) else {
            session.settleDeadline = nil
            return
        }
        // Exactly the deadline, not the clock's now: the events are the same however late the
        // loop woke, and however fast a recording plays. Settling leaves the next deadline in
        // the session.
        manager.settle(to: deadline, session: session)
    }
}

/// A weak reference that can be shared across threads.
final class WeakManager: Sendable {
    private let box: Mutex<WeakBox>
    // Only ever read and written under the mutex.
    private struct WeakBox: @unchecked Sendable { weak var value: KeyboardManager? }
    init(_ value: KeyboardManager) { box = Mutex(WeakBox(value: value)) }
    var value: KeyboardManager? { box.withLock { $0.value } }
}
