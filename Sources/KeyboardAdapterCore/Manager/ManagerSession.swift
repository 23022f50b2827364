import Dispatch
import Synchronization

/// One run of a manager: the loop its backend runs on, from ``KeyboardManager/start()`` to a
/// stop or the backend's end. The sink and the settle source name their session, so that nothing
/// from an earlier run reaches a later one.
final class ManagerSession: Sendable {
    let loop: KeyboardRunLoop
    private let tenancy: BackendTenancy
    /// Set, and `endSignal` signalled, once ``end(backend:)`` has stopped the backend and the loop.
    private let hasEnded = Atomic<Bool>(false)
    private let endSignal = DispatchSemaphore(value: 0)

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

    /// A session on `loop` for the backend whose starts `tenancy` follows (one per manager).
    init(loop: KeyboardRunLoop, tenancy: BackendTenancy) {
        self.loop = loop
        self.tenancy = tenancy
    }

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
            tenancy.moveIn(self)
            let endedMeanwhile = progress.withLock { progress in
                progress.started = true
                return progress.ended
            }
            if endedMeanwhile && tenancy.moveOut(self) { backend.stop() }
        }
    }

    /// Stops the backend (on the loop's thread) and then the loop; from another thread, returns
    /// once the loop made its last call. Idempotent.
    func end(backend: any KeyboardBackend) {
        if loop.isCurrent { stopBackend(backend) } else { loop.perform { [self] in stopBackend(backend) } }
        loop.stop()
        if !hasEnded.exchange(true, ordering: .acquiringAndReleasing) { endSignal.signal() }
    }

    /// Returns once this ended session has stopped the backend, so that the next session does not
    /// start it while this one is still stopping it. On this session's own loop thread (a callback
    /// that starts the manager again while another thread stops it), the stop queued behind the
    /// callback is made now instead.
    func finishEnding(backend: any KeyboardBackend) {
        if loop.isCurrent { return stopBackend(backend) }
        guard !hasEnded.load(ordering: .acquiring) else { return }
        endSignal.wait()
        // Others waiting for the same end are let through too.
        endSignal.signal()
    }

    /// Stops the backend once, on the loop's thread, if this session started it and it still runs
    /// for this session (the tenancy says whether a later session has taken it over since).
    private func stopBackend(_ backend: any KeyboardBackend) {
        let started = progress.withLock { progress in
            defer { progress.ended = true }
            return progress.started && !progress.ended
        }
        if started && tenancy.moveOut(self) { backend.stop() }
    }
}

/// Which session the backend was last started for: shared by a manager's sessions, so that a
/// session's stop stops the backend only while the backend is still running for it.
final class BackendTenancy: Sendable {
    private let tenant = Mutex<ObjectIdentifier?>(nil)

    /// The backend now runs for `session`.
    func moveIn(_ session: ManagerSession) {
        tenant.withLock { $0 = ObjectIdentifier(session) }
    }

    /// True when the backend was running for `session`, which it no longer is.
    func moveOut(_ session: ManagerSession) -> Bool {
        tenant.withLock { tenant in
            guard tenant == ObjectIdentifier(session) else { return false }
            tenant = nil
            return true
        }
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
