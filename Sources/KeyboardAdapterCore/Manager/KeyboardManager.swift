import Dispatch
import Glibc
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
/// each returning a ``KeyboardSubscription`` token), or with the ``updates`` async sequence.
///
/// Threading: each ``start()`` runs the backend on a ``KeyboardRunLoop`` of its own, one thread
/// blocked in `poll()`; observations become events on that thread as they arrive. Closures given
/// without a delivery are `@MainActor` and run on the main actor; with a ``KeyboardDelivery``
/// they run on the loop thread (``KeyboardDelivery/immediate``), a queue, or the thread that
/// calls ``dispatchPending()`` (``KeyboardDelivery/descriptor``). The delegate is always called
/// on the main actor. Every method of the manager may be called from any thread, also from a
/// callback.
///
/// A subscriber never sees a `did` event without its `will`: one that subscribes half-way through
/// a transition gets the next whole one, and reads the current state from ``visibleKeyboards``
/// (or the first snapshot of ``updates``).
public final class KeyboardManager: Sendable {
    /// Settings fixed at creation.
    public struct Configuration: Sendable {
        /// Seconds a frame must stay put before a `did` event (default 0.05; 0 allowed).
        public var settleInterval: Double
        /// Seconds after which deliveries that nobody drains (a main queue that never runs, a
        /// queue that is blocked, a descriptor nobody reads) are reported once through
        /// ``diagnostics`` (default 2).
        public var undrainedWarningDelay: Double
        /// Where the manager reports what no error can carry, such as deliveries that nobody
        /// drains; standard error by default. Called on the run loop's thread.
        public var diagnostics: @Sendable (String) -> Void

        /// Creates a configuration.
        public init(
            settleInterval: Double = 0.05, undrainedWarningDelay: Double = 2,
            diagnostics: @escaping @Sendable (String) -> Void = KeyboardManager.writeToStandardError
        ) {
            self.settleInterval = settleInterval
            self.undrainedWarningDelay = undrainedWarningDelay
            self.diagnostics = diagnostics
        }
    }

    /// Writes one line to standard error, prefixed with `KeyboardAdapter: `.
    public static func writeToStandardError(_ message: String) {
        let bytes = Array("KeyboardAdapter: \(message)\n".utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The backend this manager runs.
    public let backend: any KeyboardBackend
    /// The settings given at creation.
    public let configuration: Configuration

    let state: Mutex<State>
    private let held: HeldDeliveries
    private let backlog: DeliveryBacklog
    private let delegateBox = Mutex(DelegateBox())

    // Only touched under `delegateBox`'s mutex; the delegate is called on the main actor only.
    private struct DelegateBox: @unchecked Sendable {
        weak var delegate: (any KeyboardManagerDelegate)?
    }

    struct State: Sendable {
        var tracker: KeyboardTracker
        /// The keyboards visible as of the last emission routed, by id.
        var visible: [String: KeyboardState] = [:]
        var session: ManagerSession?
        var paused = false
        var subscribers = SubscriberTable()

        var sortedVisible: [KeyboardState] { visible.values.sorted { $0.keyboard.id < $1.keyboard.id } }

        /// Forgets every keyboard and ends every stream; returns the streams to finish.
        mutating func reset() -> [AsyncStream<KeyboardSnapshot>.Continuation] {
            session = nil
            tracker.reset()
            visible.removeAll()
            defer {
                subscribers.streams.removeAll()
                for stream in subscribers.progressStreams.values { stream.continuation.finish() }
                subscribers.progressStreams.removeAll()
            }
            return subscribers.streams.values.map(\.continuation)
        }
    }

    /// Creates a manager for a backend. Nothing happens until ``start()``.
    public init(backend: any KeyboardBackend, configuration: Configuration = Configuration()) {
        self.backend = backend
        self.configuration = configuration
        state = Mutex(
            State(tracker: KeyboardTracker(backendName: backend.name, settleInterval: configuration.settleInterval)))
        held = HeldDeliveries()
        backlog = DeliveryBacklog(delay: configuration.undrainedWarningDelay, report: configuration.diagnostics)
    }

    /// Creates a manager for the backend that fits this session (see ``BackendRegistry/select(name:environment:)``).
    /// Throws an error naming every backend and why it cannot run when none can.
    public convenience init(
        backendNamed name: String? = nil, registry: BackendRegistry = .shared,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configuration: Configuration = Configuration()
    ) throws {
        let backend = try registry.select(name: name, environment: environment)
        self.init(backend: backend, configuration: configuration)
    }

    deinit {
        // The last reference may go on the loop's own thread, inside a callback: stopping then
        // only asks the loop to end after the callback.
        let (session, streams) = state.withLock { state in (state.session, state.reset()) }
        session?.end(backend: backend)
        streams.forEach { $0.finish() }
    }

    // MARK: - Lifecycle

    /// Starts the backend on a run loop of its own. The keyboards already visible are reported
    /// as shown before it returns, so the queries answer for the current state right after.
    /// Calling it while running does nothing; throws when the backend cannot start.
    public func start() throws {
        let session: ManagerSession? = try state.withLock { state in
            guard state.session == nil else { return nil }
            let session = try ManagerSession(loop: KeyboardRunLoop())
            state.session = session
            return session
        }
        guard let session else { return }
        do {
            try session.loop.start()
            let sink = ManagerSink(manager: WeakManager(self), session: session)
            let settle = SettleSource(manager: WeakManager(self), session: session)
            // The closure holds no reference to the manager: releasing the manager right after
            // start must release it on the releasing thread, not later on the loop's.
            try session.begin(backend: backend) { [backend] loop in
                loop.add(settle)
                try backend.start(on: loop, sink: sink)
            }
        } catch {
            let streams = state.withLock { state in state.session === session ? state.reset() : [] }
            session.end(backend: backend)
            streams.forEach { $0.finish() }
            throw error
        }
    }

    /// Which app `isLocal` is judged against (X11: its windows or processes having the focus when
    /// a keyboard shows). The current process by default.
    public func setAppIdentity(_ identity: AppIdentity) {
        backend.setAppIdentity(identity)
    }

    /// Stops the backend and forgets every keyboard, without events; ends every ``updates``
    /// sequence. Subscriptions stay registered for the next ``start()``. Idempotent. From another
    /// thread it returns once no further immediate callback will be made; from a callback, the
    /// loop ends when the callback returns.
    public func stop() {
        let (session, streams) = state.withLock { state in (state.session, state.reset()) }
        session?.end(backend: backend)
        streams.forEach { $0.finish() }
    }

    /// True between ``start()`` and ``stop()`` (or the backend stopping by itself).
    public var isRunning: Bool { state.withLock { $0.session != nil } }

    /// Stops handing out events until ``resume()`` (MSSKeyboardManager's "ignoring updates").
    /// Keyboards are still tracked, so the queries stay right. Pairs stay whole: a `will` handed
    /// out before the pause still gets its `did`; a transition that begins during the pause is not
    /// handed out, not even its `did` after ``resume()``.
    public func pause() { state.withLock { $0.paused = true } }

    /// Hands out events again after ``pause()``.
    public func resume() { state.withLock { $0.paused = false } }

    /// True while paused.
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Unsubscribes every closure (Typist's `clear`). Their tokens become inactive no-ops.
    public func clear() {
        state.withLock { $0.subscribers.removeAll() }
    }

    /// Whether this app's own text input is focused and enabled. Backends that cannot tell whether
    /// a keyboard came up for this app (Wayland) use it for `isLocal` when a keyboard appears: true
    /// or false as set here, nil when never set. Set it whenever a text field gains or loses focus.
    public var textInputActive: Bool? {
        get { state.withLock { $0.tracker.appTextInputActive } }
        set { state.withLock { $0.tracker.appTextInputActive = newValue } }
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
        guard !targets.isEmpty || serviceRuns else { return completion(.failure(.notVisible(id ?? "keyboard"))) }
        backend.requestHide(of: targets.map(\.keyboard), completion: completion)
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
        backend.requestShow(completion: completion)
    }

    /// What the keyboards' own services say now (empty when the backend has none): whether each
    /// keyboard runs, its own word on whether it is visible, its pid. Known once started.
    public var keyboardServices: [KeyboardServiceReport] { backend.services.map(KeyboardServiceReport.init) }

    /// Whether keyboards can be asked to show (``showKeyboard()``) right now, and if not why.
    public var showSupport: Result<Void, KeyboardControlError> {
        guard backend.capabilities.contains(.showsKeyboards) else {
            return .failure(.unsupported("the \(backend.name) backend cannot show keyboards"))
        }
        guard backend.services.contains(where: { $0.state.isRunning }) else {
            let states = backend.services.map { "\($0.name): \($0.state)" }.joined(separator: "; ")
            return .failure(.unsupported("no keyboard service is running (\(states))"))
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
        let onLoop = state.withLock { $0.session?.loop.isCurrent ?? false }
        // Requests time out after a few seconds on their own; this bound only guards against a
        // backend that never completes.
        if !onLoop, done.wait(timeout: .now() + 30) == .timedOut {
            throw .failed("no answer to the request within 30 s")
        }
        if case .failure(let error) = outcome.withLock({ $0 }) { throw error }
    }

    // MARK: - Queries

    /// True while any keyboard or input-method panel is visible.
    public var isVisible: Bool { state.withLock { !$0.visible.isEmpty } }

    /// The visible keyboards and panels, ordered by id, as of the last event handed out.
    public var visibleKeyboards: [KeyboardState] { state.withLock { $0.sortedVisible } }

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

    // MARK: - Subscribing

    /// The delegate, held weakly; called on the main actor. Setting one starts its pairing
    /// afresh: it gets the next whole transitions.
    @MainActor
    public weak var delegate: (any KeyboardManagerDelegate)? {
        get { delegateBox.withLock { $0.delegate } }
        set {
            state.withLock { state in
                delegateBox.withLock { $0.delegate = newValue }
                state.subscribers.delegatePairing = PairingFilter()
            }
        }
    }

    /// Calls `handler` on the main actor for every `event`, until the token is cancelled or
    /// released. The main thread must run the main queue (`dispatchMain()`, a `RunLoop`, an async
    /// `main`); an app whose main thread runs its own loop uses ``KeyboardDelivery/descriptor``.
    public func on(_ event: KeyboardEvent, perform handler: @escaping @MainActor @Sendable (KeyboardUpdate) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.events(event, .mainActor(handler)))
    }

    /// Calls `handler` for every `event` as `delivery` says, until the token is cancelled or released.
    public func on(
        _ event: KeyboardEvent, delivery: KeyboardDelivery,
        perform handler: @escaping @Sendable (KeyboardUpdate) -> Void
    ) -> KeyboardSubscription {
        subscribe(.events(event, .delivered(delivery, handler)))
    }

    /// Calls `handler` on the main actor for every event of every kind.
    public func onEvent(perform handler: @escaping @MainActor @Sendable (KeyboardUpdate) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.events(nil, .mainActor(handler)))
    }

    /// Calls `handler` for every event of every kind as `delivery` says.
    public func onEvent(delivery: KeyboardDelivery, perform handler: @escaping @Sendable (KeyboardUpdate) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.events(nil, .delivered(delivery, handler)))
    }

    /// Calls `handler` on the main actor when the input layout of a visible keyboard changes (not
    /// a frame change).
    public func onLayoutChange(perform handler: @escaping @MainActor @Sendable (KeyboardState) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.layout(.mainActor(handler)))
    }

    /// Calls `handler` as `delivery` says when the input layout of a visible keyboard changes.
    public func onLayoutChange(
        delivery: KeyboardDelivery, perform handler: @escaping @Sendable (KeyboardState) -> Void
    ) -> KeyboardSubscription {
        subscribe(.layout(.delivered(delivery, handler)))
    }

    /// Calls `handler` on the main actor when the backend stops by itself: with the failure, or
    /// nil when a recording ended.
    public func onStop(perform handler: @escaping @MainActor @Sendable (BackendFailure?) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.stop(.mainActor(handler)))
    }

    /// Calls `handler` as `delivery` says when the backend stops by itself.
    public func onStop(delivery: KeyboardDelivery, perform handler: @escaping @Sendable (BackendFailure?) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.stop(.delivered(delivery, handler)))
    }

    /// Calls `handler` on the main actor with every intermediate frame of a show, hide or move
    /// (the frames between a `will` and its `did`), as they arrive: to move content in lock-step
    /// with the keyboard. Nothing is delivered while nothing moves.
    public func onProgress(perform handler: @escaping @MainActor @Sendable (KeyboardProgress) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.progress(.mainActor(handler)))
    }

    /// Calls `handler` as `delivery` says with every intermediate frame of a transition.
    public func onProgress(delivery: KeyboardDelivery, perform handler: @escaping @Sendable (KeyboardProgress) -> Void)
        -> KeyboardSubscription
    {
        subscribe(.progress(.delivered(delivery, handler)))
    }

    /// An async sequence of the intermediate frames of transitions, produced on the loop's thread
    /// and buffered until read; it ends when the manager stops or is released.
    public var progressUpdates: AsyncStream<KeyboardProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyboardProgress.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state -> Int in
            let id = state.subscribers.makeID()
            state.subscribers.progressStreams[id] = SubscriberTable.ProgressStream(continuation: continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.progressStreams.removeValue(forKey: id) }
        }
        return stream
    }

    private func subscribe(_ subscriber: Subscriber) -> KeyboardSubscription {
        KeyboardSubscription(manager: self, id: addSubscriber(subscriber))
    }

    /// An async sequence of snapshots: first the current state, then one per event and layout
    /// change, each with the keyboards visible as of that event. It ends when the manager stops
    /// or is released. Each call makes a new sequence; events are produced on the loop's thread
    /// and buffered until read.
    public var updates: AsyncStream<KeyboardSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyboardSnapshot.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state -> Int in
            let id = state.subscribers.makeID()
            state.subscribers.streams[id] = SubscriberTable.Stream(continuation: continuation)
            continuation.yield(KeyboardSnapshot(keyboards: state.sortedVisible))
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// A descriptor that is readable while deliveries for ``KeyboardDelivery/descriptor``
    /// subscriptions are held: add it to the app's own loop (`poll()`, `g_unix_fd_add`, epoll, an
    /// SDL or Xlib loop) and call ``dispatchPending()`` when it is readable. It stays open as long
    /// as the manager; never close or read it.
    public var pollDescriptor: Int32 { held.descriptor }

    /// Calls every held ``KeyboardDelivery/descriptor`` closure on the calling thread, in order,
    /// and returns how many were called. Call it from one thread at a time (the app's loop).
    @discardableResult
    public func dispatchPending() -> Int {
        let calls = held.take()
        backlog.drained(.descriptor, count: calls.count)
        var count = 0
        for call in calls where isSubscribed(call.subscriber) {
            call.body()
            count += 1
        }
        return count
    }

    /// True when everything handed in so far is processed and no transition waits to settle
    /// (what was emitted is then handed to its delivery). For tests.
    var isSettled: Bool {
        guard let session = state.withLock({ $0.session }) else { return true }
        // Asked on the loop's thread, between two of its callbacks: what was handed in before is
        // processed, and what a settle emitted has been handed to its delivery.
        return (try? session.loop.performAndWait { self.state.withLock { $0.tracker.nextDeadline == nil } }) ?? true
    }

    /// The number of closures registered (for diagnostics and tests).
    public var subscriberCount: Int { state.withLock { $0.subscribers.entries.count } }

    func addSubscriber(_ subscriber: Subscriber) -> Int {
        state.withLock { $0.subscribers.add(subscriber) }
    }

    func removeSubscribers(_ ids: [Int]) {
        state.withLock { $0.subscribers.remove(ids) }
    }

    private func isSubscribed(_ id: Int?) -> Bool {
        guard let id else { return true }
        return state.withLock { $0.subscribers.contains(id) }
    }

    // MARK: - Processing (on the loop's thread)

    func ingest(_ observation: KeyboardObservation, session: ManagerSession) {
        let calls = state.withLock { state -> PreparedCalls in
            guard state.session === session else { return PreparedCalls() }
            return route(state.tracker.ingest(observation), in: &state)
        }
        deliver(calls, session: session)
    }

    func settle(to time: Double, session: ManagerSession) {
        let calls = state.withLock { state -> PreparedCalls in
            guard state.session === session else { return PreparedCalls() }
            return route(state.tracker.advance(to: time), in: &state)
        }
        deliver(calls, session: session)
    }

    func nextDeadline(session: ManagerSession) -> Double? {
        state.withLock { $0.session === session ? $0.tracker.nextDeadline : nil }
    }

    func finish(failure: BackendFailure?, session: ManagerSession) {
        let result = state.withLock { state -> (PreparedCalls, [AsyncStream<KeyboardSnapshot>.Continuation])? in
            guard state.session === session else { return nil }
            var emissions = state.tracker.advance(to: .infinity)
            if let failure, failure.kind != .malformedInput {
                emissions += state.tracker.hideAll(at: session.loop.clock.now())
            }
            var calls = route(emissions, in: &state)
            state.subscribers.routeStop(failure, into: &calls)
            if delegateBox.withLock({ $0.delegate != nil }) {
                calls.mainActor.append(
                    .init(subscriber: nil, body: { self.delegate?.keyboardManager(self, didStopWith: failure) }))
            }
            return (calls, state.reset())
        }
        guard let (calls, streams) = result else { return }
        // The backend and the loop end before anyone hears of it, so that a callback may start
        // the manager again.
        session.end(backend: backend)
        streams.forEach { $0.finish() }
        deliver(calls)
    }

    /// Turns emissions into calls for every listener, updating the per-event visible state.
    private func route(_ emissions: [TrackerEmission], in state: inout State) -> PreparedCalls {
        var calls = PreparedCalls()
        guard !emissions.isEmpty else { return calls }
        let hasDelegate = delegateBox.withLock { $0.delegate != nil }
        for emission in emissions {
            switch emission {
            case .update(let update):
                if update.isVisible && update.event != .willHide {
                    state.visible[update.keyboard.id] = update.state
                } else {
                    state.visible.removeValue(forKey: update.keyboard.id)
                }
            case .layoutChanged(let keyboard):
                state.visible[keyboard.keyboard.id] = keyboard
            case .progress:
                break
            }
            state.subscribers.route(emission, paused: state.paused, into: &calls)
            for id in state.subscribers.progressStreams.keys {
                guard state.subscribers.progressStreams[id]!.pairing.admits(emission, paused: state.paused) else {
                    continue
                }
                if case .progress(let progress) = emission {
                    state.subscribers.progressStreams[id]!.continuation.yield(progress)
                }
            }
            if !state.subscribers.streams.isEmpty, !emission.isProgress {
                let keyboards = state.sortedVisible
                for id in state.subscribers.streams.keys {
                    guard state.subscribers.streams[id]!.pairing.admits(emission, paused: state.paused) else {
                        continue
                    }
                    let snapshot: KeyboardSnapshot
                    switch emission {
                    case .update(let update): snapshot = KeyboardSnapshot(keyboards: keyboards, update: update)
                    case .layoutChanged(let keyboard):
                        snapshot = KeyboardSnapshot(keyboards: keyboards, layoutChange: keyboard)
                    case .progress: continue
                    }
                    state.subscribers.streams[id]!.continuation.yield(snapshot)
                }
            }
            if hasDelegate, state.subscribers.delegatePairing.admits(emission, paused: state.paused) {
                calls.mainActor.append(.init(subscriber: nil, body: { self.callDelegate(emission) }))
            }
        }
        return calls
    }

    /// Makes the calls: immediate ones now, in order, each checked against a cancel made by an
    /// earlier one; the rest handed to their queue, the main queue or the descriptor. With a
    /// session, a stop made by an immediate callback drops the rest of the batch (a stop forgets
    /// keyboards without events).
    private func deliver(_ calls: PreparedCalls, session: ManagerSession? = nil) {
        guard !calls.isEmpty else { return }
        let current = { session.map { session in self.state.withLock { $0.session === session } } ?? true }
        for call in calls.immediate where isSubscribed(call.subscriber) {
            guard current() else { return }
            call.body()
        }
        guard current() else { return }
        for (queue, batch) in calls.queued {
            backlog.queued(.queue, count: batch.count)
            queue.async {
                self.backlog.drained(.queue, count: batch.count)
                for call in batch where self.isSubscribed(call.subscriber) { call.body() }
            }
        }
        if !calls.mainActor.isEmpty {
            let batch = calls.mainActor
            backlog.queued(.mainActor, count: batch.count)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.backlog.drained(.mainActor, count: batch.count)
                    for call in batch where self.isSubscribed(call.subscriber) { call.body() }
                }
            }
        }
        if !calls.descriptor.isEmpty {
            backlog.queued(.descriptor, count: calls.descriptor.count)
            held.append(calls.descriptor)
        }
    }

    @MainActor
    private func callDelegate(_ emission: TrackerEmission) {
        guard let delegate else { return }
        switch emission {
        case .update(let update): delegate.dispatch(update, from: self)
        case .layoutChanged(let keyboard): delegate.keyboardManager(self, didChangeLayout: keyboard)
        case .progress(let progress): delegate.keyboardManager(self, didProgress: progress)
        }
    }
}

extension TrackerEmission {
    /// True for an intermediate frame.
    var isProgress: Bool {
        if case .progress = self { return true }
        return false
    }
}
