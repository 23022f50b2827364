import Dispatch
import Glibc
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The public face of the library: runs a backend, turns what it sees into keyboard events, and
/// hands them to any number of subscribers.
///
/// Subscribe with a weak ``delegate``, with closures (``on(_:perform:)``, ``onEvent(perform:)``,
/// each returning a ``KeyboardSubscription`` token), or with the ``updates()`` async sequence.
///
/// Threading: each ``start()`` runs the backend on a ``/KeyboardBackendInterface/KeyboardRunLoop`` of its own, one thread
/// blocked in `poll()`; observations become events on that thread as they arrive. Closures given
/// without a delivery are `@MainActor` and run on the main actor; with a ``KeyboardDelivery``
/// they run on the loop thread (``KeyboardDelivery/immediate``), a queue, or the thread that
/// calls ``dispatchPending()`` (``KeyboardDelivery/descriptor``). The delegate is always called
/// on the main actor. Every method of the manager may be called from any thread, also from a
/// callback.
///
/// A subscriber never sees a `did` event without its `will`: one that subscribes half-way through
/// a transition gets the next whole one, and reads the current state from ``visibleKeyboards``
/// (or the first snapshot of ``updates()``).
public final class KeyboardManager: Sendable {
    /// Settings fixed at creation.
    public struct Configuration: Sendable {
        /// Seconds a frame must stay put before a `did` event (default 0.05; 0 allowed).
        public var settleInterval: Double
        /// Seconds after which deliveries that nobody drains (a main queue that never runs, a
        /// queue that is blocked, a descriptor nobody reads) are reported once through
        /// ``diagnostics`` (default 2): when the delay is up, by the run loop's own deadline,
        /// whether or not another event comes (during a replay, which has a clock of its own, at
        /// the next delivery after it).
        public var undrainedWarningDelay: Double
        /// Where the manager reports what no error can carry, such as deliveries that nobody
        /// drains; standard error by default. Called on the run loop's thread.
        public var diagnostics: @Sendable (String) -> Void
        /// Records every observation the backend delivers (the replay's `ObservationRecorder`,
        /// for `kbwatch --record`); nil records nothing.
        public var recorder: (any ObservationRecording)?

        /// Creates a configuration.
        public init(
            settleInterval: Double = 0.05, undrainedWarningDelay: Double = 2,
            diagnostics: @escaping @Sendable (String) -> Void = KeyboardManager.writeToStandardError,
            recorder: (any ObservationRecording)? = nil
        ) {
            self.settleInterval = settleInterval
            self.undrainedWarningDelay = undrainedWarningDelay
            self.diagnostics = diagnostics
            self.recorder = recorder
        }
    }

    /// Writes one line to standard error, prefixed with `KeyboardAdapter: `.
    @usableFromInline package static func writeToStandardError(_ message: String) {
        let bytes = Array("KeyboardAdapter: \(message)\n".utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The backend this manager runs; its loop-only methods are the manager's to call.
    package let backend: any KeyboardBackend
    /// The backend's registry name, such as `x11`.
    public var backendName: String { backend.name }
    /// What the backend can tell and do.
    public var capabilities: BackendCapabilities { backend.capabilities }
    /// The settings given at creation.
    public let configuration: Configuration

    let state: ManagerStateLock
    let held: HeldDeliveries
    let backlog: DeliveryBacklog
    let delegateBox = Mutex(DelegateBox())

    // @unchecked: the delegate is a main-actor object, which a setter on the main actor hands into
    // the box (a region the compiler cannot follow); it is only touched under `delegateBox`'s mutex
    // and only called on the main actor.
    struct DelegateBox: @unchecked Sendable {
        weak var delegate: (any KeyboardManagerDelegate)?
    }

    /// Creates a manager for a backend. Nothing happens until ``start()``.
    public init(backend: any KeyboardBackend, configuration: Configuration = Configuration()) {
        self.backend = backend
        self.configuration = configuration
        state = ManagerStateLock(
            ManagerState(
                tracker: KeyboardTracker(backendName: backend.name, settleInterval: configuration.settleInterval)))
        held = HeldDeliveries()
        backlog = DeliveryBacklog(delay: configuration.undrainedWarningDelay, report: configuration.diagnostics)
    }

    /// Creates a manager for the backend that fits this session (see ``/KeyboardBackendInterface/BackendRegistry/select(name:environment:)``).
    /// Throws an error naming every backend and why it cannot run when none can.
    public convenience init(
        backendNamed name: String? = nil, registry: BackendRegistry = .shared,
        environment: [String: String] = ProcessEnvironment.current,
        configuration: Configuration = Configuration()
    ) throws {
        let backend = try registry.select(name: name, environment: environment)
        self.init(backend: backend, configuration: configuration)
    }

    deinit {
        // The last reference may go on the loop's own thread, inside a callback: stopping then
        // only asks the loop to end after the callback.
        endRun()
    }

    // MARK: - Lifecycle

    /// Starts the backend on a run loop of its own. The keyboards already visible are reported
    /// as shown before it returns, so the queries answer for the current state right after.
    /// Calling it while running does nothing; throws when the backend cannot start. Right after a
    /// stop on another thread, it waits for that stop to have stopped the backend. From a
    /// callback, also one on the loop being stopped, it starts a new run at once.
    public func start() throws {
        while true {
            let action = try state.access { state in
                try state.lifecycle.start(making: { try ManagerRun(loop: KeyboardRunLoop()) })
            }
            switch action {
            case .open(let run):
                return try open(run)
            case .end(let run):
                // The run ending on this thread's own loop: ended now, then started anew.
                Self.end(run, backend: backend, state: state)
            case .awaitEnd(let run):
                run.waitForEnd()
            case .none, .release:
                return
            }
        }
    }

    /// Starts `run`'s loop and the backend on it, then hands on what the backend saw meanwhile;
    /// the start's caller waits for both.
    private func open(_ run: ManagerRun) throws {
        let manager = WeakManager(self)
        let sink = ManagerSink(manager: manager, run: run)
        let settle = SettleSource(manager: manager, run: run)
        // A replay plays on a clock of its own: the backlog's deadline is on the monotonic one.
        let backlogSource = backend.capabilities.contains(.drivesClock) ? nil : BacklogSource(backlog)
        do {
            try run.loop.start()
            // The closure holds no strong reference to the manager: releasing the manager right
            // after start must release it on the releasing thread, not later on the loop's.
            try run.loop.performAndWait { [backend, state] context in
                // Deadlines only: a turn asks them for nothing else.
                context.addDeadlineOnly(settle)
                if let backlogSource { context.addDeadlineOnly(backlogSource) }
                // Read on the loop: a change made since is forwarded to the run after this.
                let app = state.access { $0.appIdentity }
                try run.openBackend { try backend.open(in: context, sink: sink, app: app) }
                switch state.access({ $0.lifecycle.opened(run) }) {
                case .release:
                    for held in run.takeHeld() { manager.value?.process(held, run: run) }
                case .end:
                    // A stop came while the backend started; it forgot everything already.
                    Self.end(run, backend: backend, state: state)
                case .none, .open, .awaitEnd:
                    break
                }
            }
        } catch {
            state.withLock(
                { state, released in
                    _ = state.lifecycle.openFailed(run)
                    state.reset(into: &released)
                }, beforeLettingGo: { [backend, state] _ in Self.end(run, backend: backend, state: state) })
            throw error
        }
    }

    /// Ends `run` (its backend's stop, then its loop), tells the lifecycle, and only then lets
    /// whoever waits for the end go on. With no lock held.
    static func end(_ run: ManagerRun, backend: any KeyboardBackend, state: ManagerStateLock) {
        run.end(backend: backend) { state.access { $0.lifecycle.ended(run) } }
    }

    /// Which app `isLocal` is judged against: its windows, processes or app ids having the focus
    /// when a keyboard shows (X11: windows, the processes the X server says made them, `WM_CLASS`;
    /// wlroots compositors: the activated toplevel's app id, and its pid through sway's IPC). The
    /// current process by default.
    public func setAppIdentity(_ identity: AppIdentity) {
        // The run that is open (or opening, after its open) hears of it on its loop; a run opened
        // later reads it at its open.
        let current = state.access { state in
            state.appIdentity = identity
            return state.run
        }
        guard let run = current else { return }
        if run.loop.isCurrent {
            run.appIdentityChanged(identity)
        } else {
            run.loop.perform { run.appIdentityChanged(identity) }
        }
    }

    /// Stops the backend and forgets every keyboard, without events; then ends every
    /// ``updates()`` sequence, so that their readers may start the manager again. Subscriptions
    /// stay registered for the next ``start()``. Idempotent. From another thread it returns once
    /// no further immediate callback will be made; from a callback, the loop ends when the
    /// callback returns.
    public func stop() { endRun() }

    /// Forgets everything and ends the run, then the streams: whoever hears that they ended
    /// finds the backend stopped and may start the manager again.
    private func endRun() {
        state.withLock(
            { state, released in
                defer { state.reset(into: &released) }
                return state.lifecycle.stop()
            },
            beforeLettingGo: { [backend, state] action in
                switch action {
                case .end(let run): Self.end(run, backend: backend, state: state)
                case .awaitEnd(let run): run.waitForEnd()
                case .none, .open, .release: break
                }
            })
    }

    /// True between ``start()`` and ``stop()`` (or the backend stopping by itself).
    public var isRunning: Bool { state.access { $0.run != nil } }

    /// Stops handing out events until ``resume()`` (MSSKeyboardManager's "ignoring updates").
    /// Keyboards are still tracked, so the queries stay right. Pairs stay whole: a `will` handed
    /// out before the pause still gets its `did`; a transition that begins during the pause is not
    /// handed out, not even its `did` after ``resume()``.
    public func pause() { state.access { $0.paused = true } }

    /// Hands out events again after ``pause()``.
    public func resume() { state.access { $0.paused = false } }

    /// True while paused.
    public var isPaused: Bool { state.access { $0.paused } }

    /// Unsubscribes every closure (Typist's `clear`). Their tokens become inactive no-ops.
    public func clear() {
        state.withLock { state, released in state.subscribers.removeAll(into: &released) }
    }

    /// Whether this app's own text input is focused and enabled. Backends that cannot tell whether
    /// a keyboard came up for this app (Wayland) use it for `isLocal` when a keyboard appears: true
    /// or false as set here, nil when never set. Set it whenever a text field gains or loses focus.
    public var textInputActive: Bool? {
        get { state.access { $0.tracker.appTextInputActive } }
        set { state.access { $0.tracker.appTextInputActive = newValue } }
    }

    /// Asks every visible on-screen keyboard (not input-method panels) to hide, or only the one
    /// with `id`: through the keyboard's own service when it runs (onboard's `Hide`), else the way
    /// the backend can (X11: the window manager iconifies it). The hide arrives as
    /// `willHide`/`didHide` like any other. Returns once the keyboard (or the window manager)
    /// accepted the request; called from a callback on the manager's loop thread, it returns once
    /// the request is sent. Throws when no such keyboard is visible or nothing can hide it.
    public func hideKeyboard(id: String? = nil) throws(KeyboardControlError) {
        try waitForRequest { completion in hideKeyboard(id: id, completion: completion) }
    }

    /// Asks the visible keyboards (or the one with `id`) to hide, as ``hideKeyboard(id:)``;
    /// `completion` is called once: success when the keyboard accepted the request, on the
    /// manager's loop thread when a service replied, else on the calling thread.
    public func hideKeyboard(
        id: String? = nil, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        let targets = visibleKeyboards.filter { id == nil ? $0.keyboard.kind == .keyboard : $0.keyboard.id == id }
        // A running keyboard service can hide its keyboard even when geometry shows none (a
        // keyboard asked before its window maps); without one, a hide needs a visible keyboard.
        let serviceRuns = id == nil && isRunning && backend.services.contains { $0.state.isRunning }
        guard !targets.isEmpty || serviceRuns else { return completion(.failure(.notVisible(id ?? ""))) }
        KeyboardRequestRouting.hide(targets.map(\.keyboard), backend: backend, completion: completion)
    }

    /// Asks the on-screen keyboard to show, through its own service (onboard's `Show`,
    /// squeekboard's `SetVisible`): a window manager can restore an iconified window but not a
    /// withdrawn one, so nothing else can bring a keyboard back. Returns once the keyboard accepted
    /// the request (from a callback on the loop thread: once it is sent); the show then arrives as
    /// `willShow`/`didShow`. Throws `unsupported`, with the reason, when no keyboard service runs.
    public func showKeyboard() throws(KeyboardControlError) {
        try waitForRequest { completion in showKeyboard(completion: completion) }
    }

    /// Asks the keyboard to show, as ``showKeyboard()``; `completion` is called once.
    public func showKeyboard(completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) {
        guard isRunning else {
            return completion(.failure(.unsupported("the manager is not running: keyboard services start with it")))
        }
        KeyboardRequestRouting.show(backend: backend, completion: completion)
    }

    /// What the keyboards' own services say now (empty when the backend has none): whether each
    /// keyboard runs, its own word on whether it is visible, its pid. Known once started.
    public var keyboardServices: [KeyboardServiceReport] { backend.services.map(KeyboardServiceReport.init) }

    /// Space reserved along output edges that no visible keyboard fills (Wayland: a keyboard docked
    /// before watching started with no service to say so, or a panel; nothing tells which). Empty
    /// where the backend sees no reserved space. Any thread.
    public var reservedStrips: [ReservedStrip] {
        let keyboards = visibleKeyboards.filter(\.hasKnownFrame).map { ($0.output?.name, $0.frame) }
        return backend.reservedStrips.filter { strip in
            !keyboards.contains { name, frame in
                (name == nil || name == strip.output.name) && frame.intersection(strip.frame) != nil
            }
        }
    }

    /// Whether keyboards can be asked to show (``showKeyboard()``) right now, and if not why.
    public var showSupport: Result<Void, KeyboardControlError> {
        guard backend.capabilities.contains(.showsKeyboards) else {
            return .failure(.unsupported("the \(backend.name) backend cannot show keyboards"))
        }
        guard backend.services.contains(where: { $0.state.isRunning }) else {
            return .failure(.unsupported(KeyboardRequestRouting.reason(backend, doing: "show")))
        }
        return .success(())
    }

    /// Runs a request and waits for its outcome, except on the loop's own thread, whose replies
    /// could not arrive while it waits: there an outcome already known is thrown, else the
    /// request counts as sent.
    private func waitForRequest(
        _ request: (@escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) -> Void
    ) throws(KeyboardControlError) {
        let outcome = Mutex<Result<Void, KeyboardControlError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        request { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        let onLoop = state.access { $0.run?.loop.isCurrent ?? false }
        // Requests time out after a few seconds on their own; this bound only guards against a
        // backend that never completes.
        if !onLoop, done.wait(timeout: .now() + 30) == .timedOut {
            throw .failed("no answer to the request within 30 s")
        }
        if case .failure(let error) = outcome.withLock({ $0 }) { throw error }
    }

    // MARK: - Queries

    /// True while any keyboard or input-method panel is visible.
    public var isVisible: Bool { state.access { !$0.visible.isEmpty } }

    /// The visible keyboards and panels, ordered by id, as of the last event handed out.
    public var visibleKeyboards: [KeyboardState] { state.access { $0.sortedVisible } }

    /// The frame of the visible on-screen keyboard (the first by id when several are visible,
    /// panels and keyboards at an unknown place not counted); nil when none is visible.
    public var currentFrame: Rect? {
        visibleKeyboards.first { $0.keyboard.kind == .keyboard && $0.hasKnownFrame }?.frame
    }

    /// The region covered by the visible keyboards, and by input-method panels when asked: the
    /// smallest rectangle holding them all; nil when nothing with a known frame is visible.
    public func coveredRegion(includingPanels: Bool = true) -> Rect? {
        let frames = knownFrames(includingPanels: includingPanels)
        guard let first = frames.first else { return nil }
        return frames.dropFirst().reduce(first) { $0.union($1) }
    }

    /// The insets an app window (its frame in global coordinates) should keep free from every
    /// visible keyboard and panel whose frame is known.
    public func insets(forWindow window: Rect, includingPanels: Bool = true) -> EdgeInsets {
        WindowGeometry.insets(for: knownFrames(includingPanels: includingPanels), inWindow: window)
    }

    private func knownFrames(includingPanels: Bool) -> [Rect] {
        visibleKeyboards.filter { $0.hasKnownFrame && (includingPanels || $0.keyboard.kind == .keyboard) }.map(\.frame)
    }
}
