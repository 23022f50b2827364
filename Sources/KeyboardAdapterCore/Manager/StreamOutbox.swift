import Synchronization

/// Something whose pending output is handed on by ``drain()``, with no lock held.
protocol Draining: AnyObject, Sendable {
    /// Hands on what is pending.
    func drain()
}

/// A stream's elements on their way to its reader: appended under the manager's lock, in the
/// order they were routed, and yielded by ``drain()`` once that lock is released, by whichever
/// thread drains first (a thread that finds another draining leaves its elements to it). So no
/// stream is yielded to or finished under a library lock, and the order stays the routing order
/// even when the loop's thread and an app's thread (a new stream's first snapshot) both drain.
///
/// It holds the continuation as its two calls, not as the concurrency library's type (whose
/// layout only its runtime knows): a manager that never hands out a stream never loads that code.
final class StreamOutbox<Element: Sendable>: Draining {
    private struct Pending: Sendable {
        var elements: [Element] = []
        var finishing = false
        var draining = false
        var finished = false
    }
    private let pending = Mutex(Pending())
    private let yield: @Sendable (Element) -> Void
    private let finishStream: @Sendable () -> Void

    /// An outbox for `continuation`.
    convenience init(_ continuation: AsyncStream<Element>.Continuation) {
        self.init(yield: { continuation.yield($0) }, finish: { continuation.finish() })
    }

    /// An outbox that hands its elements to `yield` and its end to `finish`.
    init(yield: @escaping @Sendable (Element) -> Void, finish: @escaping @Sendable () -> Void) {
        self.yield = yield
        finishStream = finish
    }

    /// Queues `element` (under the manager's lock); nothing once the stream is finishing.
    func append(_ element: Element) {
        pending.withLock { pending in
            if !pending.finishing { pending.elements.append(element) }
        }
    }

    /// Ends the stream after what is queued: call with no lock held.
    func finish() {
        pending.withLock { $0.finishing = true }
        drain()
    }

    func drain() {
        while true {
            let taken = pending.withLock { pending -> (elements: [Element], finish: Bool)? in
                guard !pending.draining, !pending.finished, !pending.elements.isEmpty || pending.finishing else {
                    return nil
                }
                pending.draining = true
                defer { pending.elements.removeAll() }
                return (pending.elements, pending.finishing)
            }
            guard let taken else { return }
            for element in taken.elements { yield(element) }
            if taken.finish { finishStream() }
            pending.withLock { pending in
                pending.draining = false
                if taken.finish { pending.finished = true }
            }
        }
    }
}
