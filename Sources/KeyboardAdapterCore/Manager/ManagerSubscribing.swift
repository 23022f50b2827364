import Dispatch
import Synchronization

/// Subscribing: closures in each delivery, the delegate, the async sequences and the pollable
/// descriptor.
extension KeyboardManager {

    /// The delegate, held weakly; called on the main actor. Setting one starts its pairing
    /// afresh: it gets the next whole transitions.
    @MainActor
    public weak var delegate: (any KeyboardManagerDelegate)? {
        get { delegateBox.withLock { $0.delegate } }
        set {
            let isSet = newValue != nil
            state.access { state in
                delegateBox.withLock { $0.delegate = newValue }
                state.hasDelegate = isSet
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
    public func progressUpdates() -> AsyncStream<KeyboardProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyboardProgress.self, bufferingPolicy: .unbounded)
        let id = state.access { $0.subscribers.addProgressStream(StreamOutbox(continuation)) }
        continuation.onTermination = { [weak self] _ in self?.removeStream(id) }
        return stream
    }

    func subscribe(_ subscriber: Subscriber) -> KeyboardSubscription {
        KeyboardSubscription(manager: self, id: addSubscriber(subscriber))
    }

    /// An async sequence of snapshots: first the current state, then one per event and layout
    /// change, each with the keyboards visible as of that event. It ends when the manager stops
    /// or is released. Each call makes a new sequence (and a new subscriber: keep the one you
    /// read); events are produced on the loop's thread and buffered until read.
    public func updates() -> AsyncStream<KeyboardSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyboardSnapshot.self, bufferingPolicy: .unbounded)
        // The first snapshot is queued under the lock, ahead of any event routed after it, and
        // yielded once the lock is released.
        let outbox = StreamOutbox(continuation)
        let id = state.access { state in
            outbox.append(KeyboardSnapshot(keyboards: state.sortedVisible))
            return state.subscribers.addStream(outbox)
        }
        outbox.drain()
        continuation.onTermination = { [weak self] _ in self?.removeStream(id) }
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
        guard let run = state.access({ $0.run }) else { return true }
        // Asked on the loop's thread, between two of its callbacks: what was handed in before is
        // processed, and what a settle emitted has been handed to its delivery.
        return (try? run.loop.performAndWait { self.state.access { $0.tracker.nextDeadline == nil } }) ?? true
    }

    /// The number of closures registered (for diagnostics and tests).
    public var subscriberCount: Int { state.access { $0.subscribers.entries.count } }

    func addSubscriber(_ subscriber: Subscriber) -> Int {
        state.access { $0.subscribers.add(subscriber) }
    }

    func removeSubscribers(_ ids: [Int]) {
        state.withLock { state, released in state.subscribers.remove(ids, into: &released) }
    }

    private func removeStream(_ id: Int) {
        state.withLock { state, released in state.subscribers.removeStream(id, into: &released) }
    }

    func isSubscribed(_ id: Int?) -> Bool {
        guard let id else { return true }
        return state.access { $0.subscribers.contains(id) }
    }
}
