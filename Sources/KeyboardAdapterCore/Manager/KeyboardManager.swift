import Dispatch
import Foundation
import Synchronization

/// The public face of the library: runs a backend, turns what it sees into keyboard events, and
/// hands them to any number of subscribers.
///
/// Subscribe with a weak ``delegate``, with closures (``on(_:perform:)``, ``onEvent(perform:)``,
/// each returning a ``KeyboardSubscription`` token), or with the ``updates`` async sequence.
///
/// Threading: the backend runs on its own thread; observations are processed in order on a private
/// serial queue; closures are called on the callback queue given at creation, the main queue
/// (main actor) by default; the delegate is always called on the main actor. Give a serial queue
/// so that events arrive in order. Every method of the manager may be called from any thread.
public final class KeyboardManager: Sendable {
    /// Settings fixed at creation.
    public struct Configuration: Sendable {
        /// Seconds a frame must stay put before a `did` event (default 0.05; 0 allowed).
        public var settleInterval: Double
        /// Where closures are called: nil for the main queue (the main actor).
        public var callbackQueue: DispatchQueue?

        /// Creates a configuration.
        public init(settleInterval: Double = 0.05, callbackQueue: DispatchQueue? = nil) {
            self.settleInterval = settleInterval
            self.callbackQueue = callbackQueue
        }
    }

    /// The backend this manager runs.
    public let backend: any KeyboardBackend
    /// The settings given at creation.
    public let configuration: Configuration

    private let processing = DispatchQueue(label: "KeyboardAdapter.KeyboardManager.processing")
    private let state: Mutex<State>
    private let delegateBox = Mutex(DelegateBox())

    // Only touched under `delegateBox`'s mutex; the delegate is called on the main actor only.
    private struct DelegateBox: @unchecked Sendable {
        weak var delegate: (any KeyboardManagerDelegate)?
    }

    private struct State: Sendable {
        var tracker: KeyboardTracker
        var running = false
        var paused = false
        var generation = 0
        var nextSubscriberID = 0
        var subscribers: [Int: Subscriber] = [:]
        var streams: [Int: AsyncStream<KeyboardSnapshot>.Continuation] = [:]
        var timer: SettleTimer?
    }

    /// The one-shot settle timer. Created, armed and cancelled only on the processing queue (and
    /// in deinit, when nothing else can reach it), which is what makes sharing it safe.
    private struct SettleTimer: @unchecked Sendable {
        let source: DispatchSourceTimer
    }

    /// Creates a manager for a backend. Nothing happens until ``start()``.
    public init(backend: any KeyboardBackend, configuration: Configuration = Configuration()) {
        self.backend = backend
        self.configuration = configuration
        state = Mutex(
            State(
                tracker: KeyboardTracker(
                    backendName: backend.name,
                    settleInterval: configuration.settleInterval)))
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
        // The last reference may be dropped on the backend's own thread, inside a sink call:
        // backends' stop() then only asks their thread to end instead of waiting for it.
        backend.stop()
        let leftovers = state.withLock { state -> ([AsyncStream<KeyboardSnapshot>.Continuation], SettleTimer?) in
            defer { state.streams.removeAll() }
            return (Array(state.streams.values), state.timer)
        }
        leftovers.1?.source.cancel()
        leftovers.0.forEach { $0.finish() }
    }

    // MARK: - Lifecycle

    /// Starts the backend. The keyboards already visible are reported as shown. Calling it while
    /// running does nothing; throws when the backend cannot start.
    public func start() throws {
        let (generation, ranBefore): (Int?, Bool) = state.withLock { state in
            guard !state.running else { return (nil, false) }
            state.running = true
            state.generation += 1
            return (state.generation, state.generation > 1)
        }
        guard let generation else { return }
        // A backend that stopped by itself (its display server died) may still hold its old
        // state; stopping it first (idempotent) lets it start afresh.
        if ranBefore { backend.stop() }
        do {
            try backend.start(sink: ManagerSink(manager: self, generation: generation))
        } catch {
            state.withLock { $0.running = false }
            throw error
        }
        // The backend delivered the keyboards already visible before returning: once they are
        // processed, the queries answer for the current state.
        processing.sync {}
    }

    /// Which app `isLocal` is judged against (X11: its windows or processes having the focus when
    /// a keyboard shows). The current process by default.
    public func setAppIdentity(_ identity: AppIdentity) {
        backend.setAppIdentity(identity)
    }

    /// Stops the backend and forgets every keyboard, without events; ends every ``updates``
    /// sequence. Subscriptions stay registered for the next ``start()``. Idempotent.
    public func stop() {
        backend.stop()
        processing.sync {
            let (timer, streams) = state.withLock { state in
                defer {
                    state.running = false
                    state.generation += 1
                    state.tracker.reset()
                    state.timer = nil
                    state.streams.removeAll()
                }
                return (state.timer, Array(state.streams.values))
            }
            timer?.source.cancel()
            streams.forEach { $0.finish() }
        }
    }

    /// True between ``start()`` and ``stop()`` (or the backend stopping by itself).
    public var isRunning: Bool { state.withLock { $0.running } }

    /// Stops handing out events until ``resume()`` (MSSKeyboardManager's "ignoring updates").
    /// Keyboards are still tracked, so the queries stay right; events of the pause are dropped.
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
    /// with `id`. The hide arrives as `willHide`/`didHide` like any other. Throws when no such
    /// keyboard is visible or the backend cannot hide it.
    public func hideKeyboard(id: String? = nil) throws(KeyboardControlError) {
        let targets = visibleKeyboards.filter { id == nil ? $0.keyboard.kind == .keyboard : $0.keyboard.id == id }
        guard !targets.isEmpty else { throw .notVisible(id ?? "keyboard") }
        for target in targets { try backend.requestHide(of: target.keyboard) }
    }

    // MARK: - Queries

    /// True while any keyboard or input-method panel is visible.
    public var isVisible: Bool { !visibleKeyboards.isEmpty }

    /// The visible keyboards and panels, ordered by id.
    public var visibleKeyboards: [KeyboardState] { state.withLock { $0.tracker.visibleKeyboards } }

    /// The frame of the visible on-screen keyboard (the first by id when several are visible,
    /// panels not counted); nil when none is visible.
    public var currentFrame: Rect? {
        visibleKeyboards.first { $0.keyboard.kind == .keyboard }?.frame
    }

    /// The region covered by the visible keyboards, and by input-method panels when asked: the
    /// smallest rectangle holding them all; nil when nothing is visible.
    public func coveredRegion(includingPanels: Bool = true) -> Rect? {
        let frames = visibleKeyboards.filter { includingPanels || $0.keyboard.kind == .keyboard }.map(\.frame)
        guard let first = frames.first else { return nil }
        return frames.dropFirst().reduce(first) { $0.union($1) }
    }

    /// The insets an app window (its frame in global coordinates) should keep free from every
    /// visible keyboard and panel.
    public func insets(forWindow window: Rect, includingPanels: Bool = true) -> EdgeInsets {
        let frames = visibleKeyboards.filter { includingPanels || $0.keyboard.kind == .keyboard }.map(\.frame)
        return WindowGeometry.insets(for: frames, inWindow: window)
    }

    // MARK: - Subscribing

    /// The delegate, held weakly; called on the main actor.
    @MainActor
    public weak var delegate: (any KeyboardManagerDelegate)? {
        get { delegateBox.withLock { $0.delegate } }
        set { delegateBox.withLock { $0.delegate = newValue } }
    }

    /// Calls `handler` for every `event`, on the callback queue, until the token is cancelled or released.
    public func on(_ event: KeyboardEvent, perform handler: @escaping @Sendable (KeyboardUpdate) -> Void)
        -> KeyboardSubscription
    {
        KeyboardSubscription(manager: self, id: addSubscriber(.event(event, handler)))
    }

    /// Calls `handler` for every event of every kind.
    public func onEvent(perform handler: @escaping @Sendable (KeyboardUpdate) -> Void) -> KeyboardSubscription {
        KeyboardSubscription(manager: self, id: addSubscriber(.allEvents(handler)))
    }

    /// Calls `handler` when the input layout of a visible keyboard changes (not a frame change).
    public func onLayoutChange(perform handler: @escaping @Sendable (KeyboardState) -> Void) -> KeyboardSubscription {
        KeyboardSubscription(manager: self, id: addSubscriber(.layout(handler)))
    }

    /// Calls `handler` when the backend stops by itself: with the failure, or nil when a recording ended.
    public func onStop(perform handler: @escaping @Sendable (BackendFailure?) -> Void) -> KeyboardSubscription {
        KeyboardSubscription(manager: self, id: addSubscriber(.stop(handler)))
    }

    /// An async sequence of snapshots: first the current state, then one per event and layout
    /// change. It ends when the manager stops or is released. Each call makes a new sequence.
    public var updates: AsyncStream<KeyboardSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyboardSnapshot.self, bufferingPolicy: .unbounded)
        processing.sync {
            let id = state.withLock { state -> Int in
                state.nextSubscriberID += 1
                state.streams[state.nextSubscriberID] = continuation
                continuation.yield(KeyboardSnapshot(keyboards: state.tracker.visibleKeyboards))
                return state.nextSubscriberID
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// True when everything delivered so far is processed and no transition waits to settle
    /// (what was emitted is then queued for the callbacks).
    var isSettled: Bool { processing.sync { state.withLock { $0.tracker.nextDeadline == nil } } }

    /// The number of closures registered (for diagnostics and tests).
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func addSubscriber(_ subscriber: Subscriber) -> Int {
        state.withLock { state in
            state.nextSubscriberID += 1
            state.subscribers[state.nextSubscriberID] = subscriber
            return state.nextSubscriberID
        }
    }

    func removeSubscribers(_ ids: [Int]) {
        state.withLock { state in
            for id in ids { state.subscribers.removeValue(forKey: id) }
        }
    }

    // MARK: - Processing (on the private queue)

    fileprivate func handle(_ observation: Observation, generation: Int) {
        processing.async {
            let emissions = self.state.withLock { state -> [TrackerEmission] in
                guard state.generation == generation else { return [] }
                return state.tracker.ingest(observation)
            }
            self.publish(emissions)
            self.rearmTimer(generation: generation)
        }
    }

    fileprivate func nextDeadline(generation: Int) -> Double? {
        processing.sync { state.withLock { $0.generation == generation ? $0.tracker.nextDeadline : nil } }
    }

    fileprivate func advance(to time: Double, generation: Int) {
        processing.async {
            let emissions = self.state.withLock { state -> [TrackerEmission] in
                guard state.generation == generation else { return [] }
                return state.tracker.advance(to: time)
            }
            self.publish(emissions)
        }
    }

    fileprivate func finish(failure: BackendFailure?, generation: Int) {
        processing.async {
            let (emissions, streams) = self.state.withLock {
                state -> ([TrackerEmission], [AsyncStream<KeyboardSnapshot>.Continuation]) in
                guard state.generation == generation else { return ([], []) }
                var emissions = state.tracker.advance(to: .infinity)
                if let failure, failure.kind != .malformedInput {
                    emissions += state.tracker.hideAll(at: MonotonicClock.now())
                }
                state.running = false
                state.generation += 1
                state.timer?.source.cancel()
                state.timer = nil
                defer { state.streams.removeAll() }
                return (emissions, Array(state.streams.values))
            }
            self.publish(emissions, streamsOverride: streams)
            self.publishStop(failure)
            streams.forEach { $0.finish() }
        }
    }

    /// Arms a one-shot timer for the tracker's next deadline; none when nothing is pending, so an
    /// idle manager costs no CPU. Clock-driving backends (replay) settle through the sink instead.
    private func rearmTimer(generation: Int) {
        guard !backend.capabilities.contains(.drivesClock) else { return }
        let old = state.withLock { state -> SettleTimer? in
            defer { state.timer = nil }
            return state.timer
        }
        old?.source.cancel()
        guard let deadline = state.withLock({ $0.tracker.nextDeadline }) else { return }
        let timer = DispatchSource.makeTimerSource(queue: processing)
        let delay = max(0, deadline - MonotonicClock.now())
        timer.schedule(deadline: .now() + delay, leeway: .milliseconds(1))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let emissions = self.state.withLock { state -> [TrackerEmission] in
                guard state.generation == generation else { return [] }
                return state.tracker.advance(to: max(deadline, MonotonicClock.now()))
            }
            self.publish(emissions)
            self.rearmTimer(generation: generation)
        }
        state.withLock { $0.timer = SettleTimer(source: timer) }
        timer.resume()
    }

    /// Hands emissions to closures, the delegate and the streams, in order.
    private func publish(
        _ emissions: [TrackerEmission],
        streamsOverride: [AsyncStream<KeyboardSnapshot>.Continuation]? = nil
    ) {
        guard !emissions.isEmpty else { return }
        let (paused, streams, visible) = state.withLock {
            ($0.paused, streamsOverride ?? Array($0.streams.values), $0.tracker.visibleKeyboards)
        }
        guard !paused else { return }
        for emission in emissions {
            switch emission {
            case .update(let update): streams.forEach { $0.yield(KeyboardSnapshot(keyboards: visible, update: update)) }
            case .layoutChanged(let keyboard):
                streams.forEach { $0.yield(KeyboardSnapshot(keyboards: visible, layoutChange: keyboard)) }
            }
        }
        // Nothing is queued for nobody: a program whose main thread never drains the main queue
        // (it runs its own event loop) must not pile up blocks there.
        if state.withLock({ !$0.subscribers.isEmpty }) {
            let queue = configuration.callbackQueue ?? .main
            queue.async { self.callClosures(emissions) }
        }
        if delegateBox.withLock({ $0.delegate != nil }) {
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self.callDelegate(emissions) }
            }
        }
    }

    private func publishStop(_ failure: BackendFailure?) {
        if state.withLock({ !$0.subscribers.isEmpty }) {
            let queue = configuration.callbackQueue ?? .main
            queue.async {
                for id in self.subscriberIDs() {
                    if case .stop(let handler)? = self.subscriber(id) { handler(failure) }
                }
            }
        }
        if delegateBox.withLock({ $0.delegate != nil }) {
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self.delegate?.keyboardManager(self, didStopWith: failure) }
            }
        }
    }

    /// Calls the closures; each is looked up again right before its call, so one cancelled by an
    /// earlier callback of the same batch is not called.
    private func callClosures(_ emissions: [TrackerEmission]) {
        let ids = subscriberIDs()
        for emission in emissions {
            for id in ids {
                switch (emission, subscriber(id)) {
                case (.update(let update), .event(let event, let handler)?) where event == update.event: handler(update)
                case (.update(let update), .allEvents(let handler)?): handler(update)
                case (.layoutChanged(let keyboard), .layout(let handler)?): handler(keyboard)
                default: break
                }
            }
        }
    }

    @MainActor
    private func callDelegate(_ emissions: [TrackerEmission]) {
        for emission in emissions {
            guard let delegate else { return }
            switch emission {
            case .update(let update): delegate.dispatch(update, from: self)
            case .layoutChanged(let keyboard): delegate.keyboardManager(self, didChangeLayout: keyboard)
            }
        }
    }

    private func subscriberIDs() -> [Int] { state.withLock { $0.subscribers.keys.sorted() } }
    private func subscriber(_ id: Int) -> Subscriber? { state.withLock { $0.subscribers[id] } }
}

/// The sink a manager gives its backend; stale after a stop (a new start makes a new one).
private struct ManagerSink: ObservationSink {
    let manager: WeakManager
    let generation: Int

    init(manager: KeyboardManager, generation: Int) {
        self.manager = WeakManager(manager)
        self.generation = generation
    }

    func deliver(_ observation: Observation) { manager.value?.handle(observation, generation: generation) }
    func nextDeadline() -> Double? { manager.value?.nextDeadline(generation: generation) }
    func advance(to time: Double) { manager.value?.advance(to: time, generation: generation) }
    func finish(failure: BackendFailure?) { manager.value?.finish(failure: failure, generation: generation) }
}
