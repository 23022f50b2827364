import Glibc
import KeyboardBackendInterface

/// A bus connection as a run-loop source: sd-bus's descriptor, events and timeout are the
/// source's, and `sd_bus_process` runs until it has nothing left, at most ``processBatch``
/// messages per loop turn (a flooding peer cannot keep the loop from its other sources). Its
/// owner may add a deadline of its own (``timer``). Used on the loop's thread only.
package final class BusPump: LoopSource {
    /// At most this many messages are processed per loop turn.
    package static let processBatch = 256

    package let connection: BusConnection
    private let context: LoopContext
    private var mustProcess = true
    /// The owner's own deadline, in the loop's clock; ``onTimer`` is called when it comes.
    package var timer: Double?
    /// Called when ``timer`` came (the owner moves or clears it).
    package var onTimer: (() -> Void)?
    /// Called once when the connection breaks, with the reason; the pump is closed by then.
    package var onBroken: ((String) -> Void)?
    package private(set) var isClosed = false

    /// Adds `connection` to the loop of `context`.
    package init(_ connection: BusConnection, context: LoopContext) {
        self.connection = connection
        self.context = context
        context.add(self)
    }

    /// Something was queued outside `process()` (a call, a signal): the next turn flushes it.
    package func needsProcessing() { mustProcess = true }

    package func prepareToWait() -> (descriptor: Int32, events: Int16) {
        guard !isClosed else { return (-1, 0) }
        if mustProcess { drain() }
        guard !isClosed, let events = connection.events else {
            if !isClosed { broken("the session bus went away") }
            return (-1, 0)
        }
        return (connection.descriptor, events)
    }

    package func handle(events: Int16) {
        guard !isClosed, events != 0 else { return }
        mustProcess = true
        drain()
    }

    package var deadline: Double? {
        guard !isClosed else { return nil }
        // A batch cut short comes back at once.
        if mustProcess { return 0 }
        let bus = connection.timeoutMicroseconds.map { Double($0) / 1_000_000 }
        guard let timer else { return bus }
        return min(bus ?? timer, timer)
    }

    package func deadlineReached() {
        if let timer, timer <= MonotonicClock.now() {
            self.timer = nil
            onTimer?()
        }
        guard !isClosed else { return }
        mustProcess = true
        drain()
        // sd-bus moves its timeout once it has processed; a timeout it keeps in the past would
        // spin the loop: it is then only looked at again with the next input.
        if !isClosed, let usec = connection.timeoutMicroseconds, Double(usec) / 1_000_000 <= MonotonicClock.now() {
            mustProcess = false
        }
    }

    private func drain() {
        for _ in 0..<Self.processBatch {
            let status = connection.process()
            if isClosed { return }
            if status < 0 {
                broken("the session bus went away (\(String(cString: strerror(-status))))")
                return
            }
            if status == 0 {
                mustProcess = false
                return
            }
        }
        mustProcess = true
    }

    private func broken(_ reason: String) {
        close()
        onBroken?(reason)
    }

    /// Leaves the loop. Idempotent; the connection closes when its last owner lets it go.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        context.remove(self)
    }
}
