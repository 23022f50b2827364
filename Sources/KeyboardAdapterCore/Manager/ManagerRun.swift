import Dispatch
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization

/// One run of a manager: the loop its backend runs on, from ``KeyboardManager/start()`` to a
/// stop or the backend's end. Where the run is in its life is the manager's ``RunLifecycle``'s
/// to say; a run holds what its loop's thread needs: whether its backend is open, and what the
/// backend delivered while it started. The sink and the settle source name their run, so that
/// nothing from an earlier run reaches a later one.
final class ManagerRun: Sendable {
    let loop: KeyboardRunLoop

    /// What only the run's loop touches.
    private struct OnLoop {
        /// What the backend's open returned, until the run ends and closes it.
        var connection: (any BackendConnection)?
        /// Set while the backend starts: what it delivers meanwhile waits here, so that the app
        /// hears of it only once the start returned (a callback may then stop or start the
        /// manager, which it could not do while the backend was in the middle of its start).
        var holding = false
        var held: [HeldObservation] = []
        /// The calls of the last event, emptied, kept for the next one (see `takeSpareCalls`).
        var spareCalls: PreparedCalls?
    }
    private let onLoop: LoopBound<OnLoop>

    /// What the backend delivered while it started, in order.
    enum HeldObservation: Sendable {
        case observation(KeyboardObservation)
        case finish(BackendFailure?)
    }

    /// Set, and `endSignal` signalled, once ``end(backend:ended:)`` has stopped the backend and the loop.
    private let hasEnded = Atomic<Bool>(false)
    private let endSignal = DispatchSemaphore(value: 0)

    /// The tracker's earliest settle deadline as of its last change (the bits of a `Double`, NaN
    /// for none): what the settle source tells the loop before every wait, read without taking
    /// the manager's lock. Written on the loop's thread whenever the tracker changes there; a
    /// value left behind by a stop costs at most one turn, whose call puts it right.
    private let cachedDeadline = Atomic<UInt64>(Double.nan.bitPattern)

    /// A run on `loop`.
    init(loop: KeyboardRunLoop) {
        self.loop = loop
        onLoop = LoopBound(OnLoop(), loop: loop)
    }

    /// See `cachedDeadline`.
    var settleDeadline: Double? {
        get {
            let value = Double(bitPattern: cachedDeadline.load(ordering: .relaxed))
            return value.isNaN ? nil : value
        }
        set { cachedDeadline.store((newValue ?? .nan).bitPattern, ordering: .relaxed) }
    }

    /// Opens the backend's connection with `open`, on the loop's thread; what it delivers
    /// meanwhile is held. On the loop's thread.
    func openBackend(_ open: () throws -> any BackendConnection) throws {
        onLoop.value.holding = true
        defer { onLoop.value.holding = false }
        onLoop.value.connection = try open()
    }

    /// Tells the open connection (if any) that the app's identity changed. On the loop's thread,
    /// or once it has ended.
    func appIdentityChanged(_ identity: AppIdentity) {
        onLoop.value.connection?.appIdentityChanged(identity)
    }

    /// True while the backend starts: what it delivers is to be held. On the loop's thread.
    var isHolding: Bool { onLoop.value.holding }

    /// Keeps `observation` until the backend's start returns. On the loop's thread.
    func hold(_ observation: HeldObservation) {
        onLoop.value.held.append(observation)
    }

    /// Room for an event's calls: the last event's, emptied, so that an event allocates no
    /// arrays. An event handled inside another's callback (a restart's start) finds none and
    /// makes its own.
    func takeSpareCalls() -> PreparedCalls {
        var spare: PreparedCalls?
        swap(&spare, &onLoop.value.spareCalls)
        return spare ?? PreparedCalls()
    }

    /// Empties an event's calls, once they were made and outside every lock (it may let go of
    /// the app's last reference to a callback), and keeps the room for the next event.
    func keepSpare(_ calls: inout PreparedCalls) {
        calls.removeAll()
        onLoop.value.spareCalls = calls
    }

    /// What was held during the backend's start, taken out. On the loop's thread.
    func takeHeld() -> [HeldObservation] {
        defer { onLoop.value.held.removeAll() }
        return onLoop.value.held
    }

    /// Closes the backend's connection and stops its services (on the loop's thread) if this run
    /// opened it and has not closed it, and then the loop; from another thread, returns once the loop made its last call.
    /// Idempotent: the stop queued by one thread finds the backend stopped when another (a
    /// callback on this loop) ended the run first. `ended` runs before anyone waiting for the end
    /// is let go.
    func end(backend: any KeyboardBackend, ended: () -> Void) {
        let stopBackend: @Sendable () -> Void = { [onLoop] in
            guard let connection = onLoop.value.connection else { return }
            onLoop.value.connection = nil
            onLoop.value.held.removeAll()
            backend.end(connection)
        }
        // From another thread: at the loop's next turn, or at once when the loop never ran or
        // has ended.
        if loop.isCurrent { stopBackend() } else { loop.perform(stopBackend) }
        loop.stop()
        ended()
        if !hasEnded.exchange(true, ordering: .acquiringAndReleasing) { endSignal.signal() }
    }

    /// Returns once the run has ended (see ``end(backend:ended:)``).
    func waitForEnd() {
        guard !hasEnded.load(ordering: .acquiring) else { return }
        endSignal.wait()
        // Others waiting for the same end are let through too.
        endSignal.signal()
    }
}

/// The sink a manager gives its backend for one run. On the loop's thread an observation is
/// processed at once (or held while the backend starts); from any other thread (an in-memory
/// backend fed by a test) it is handed to the loop, so processing stays on one thread and in
/// order.
struct ManagerSink: ObservationSink {
    let manager: WeakManager
    let run: ManagerRun

    func deliver(_ observation: KeyboardObservation) {
        if run.loop.isCurrent {
            // Looked at first, so that an observation is wrapped only when it is held.
            if run.isHolding { return run.hold(.observation(observation)) }
            manager.value?.ingest(observation, run: run)
        } else {
            run.loop.perform { [manager, run] in manager.value?.ingest(observation, run: run) }
        }
    }

    func finish(failure: BackendFailure?) {
        if run.loop.isCurrent {
            if run.isHolding { return run.hold(.finish(failure)) }
            manager.value?.finish(failure: failure, run: run)
        } else {
            run.loop.perform { [manager, run] in manager.value?.finish(failure: failure, run: run) }
        }
    }
}

/// The tracker's settle deadlines as a loop source: no descriptor, no timer object, just the
/// earliest deadline, which becomes the loop's poll timeout.
final class SettleSource: LoopSource, Sendable {
    let manager: WeakManager
    let run: ManagerRun

    init(manager: WeakManager, run: ManagerRun) {
        self.manager = manager
        self.run = run
    }

    /// The tracker's next deadline, as the manager last left it (no lock taken).
    var deadline: Double? { run.settleDeadline }

    func deadlineReached() {
        guard let manager = manager.value else {
            run.settleDeadline = nil
            return
        }
        // Settling leaves the next deadline in the run.
        manager.settleAtDeadline(run: run)
    }
}

/// A weak reference that can be shared across threads.
final class WeakManager: Sendable {
    private let box: Mutex<WeakBox>
    // Only ever read and written under the mutex.
    private struct WeakBox { weak var value: KeyboardManager? }
    init(_ value: KeyboardManager) { box = Mutex(WeakBox(value: value)) }
    var value: KeyboardManager? { box.withLock { $0.value } }
}
