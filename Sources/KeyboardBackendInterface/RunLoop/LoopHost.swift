import Synchronization

/// A run loop of one's own with a value made on it: starts the loop's thread, makes the value
/// there (a bus connection and its objects, a backend's start), keeps it bound to that loop, and
/// at the end closes it there and stops the loop. What a service or a client that needs a thread
/// of its own does, written once.
package final class LoopHost<Value>: Sendable {
    /// The loop the value lives on.
    package let loop: KeyboardRunLoop
    /// The value, bound to ``loop``.
    package let value: LoopBound<Value>
    private let close: @Sendable (Value) -> Void
    private let stopped = Atomic<Bool>(false)

    /// Starts a loop named `name` and makes the value on it with `make`; `close` ends it on the
    /// loop at ``stop()``. What `make` throws is thrown (the loop stopped); a loop that cannot
    /// start throws its `BackendFailure`.
    package init(
        name: String, make: @escaping @Sendable (LoopContext) throws -> Value,
        close: @escaping @Sendable (Value) -> Void
    ) throws {
        let loop = try KeyboardRunLoop()
        try loop.start(name: name)
        do {
            value = try loop.performAndWait { context in LoopBound(try make(context), loop: loop) }
        } catch {
            loop.stop()
            throw error
        }
        self.loop = loop
        self.close = close
    }

    /// Runs `work` with the value on the loop's thread (at once when called there or when the
    /// loop ended), and waits for it.
    package func withValue<T: Sendable>(_ work: @escaping @Sendable (Value) throws -> T) throws -> T {
        try loop.performAndWait { [value] in try work(value.value) }
    }

    /// Closes the value on the loop's thread, then stops the loop. Idempotent.
    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? loop.performAndWait { [value, close] in close(value.value) }
        loop.stop()
    }

    deinit { stop() }
}
