import KeyboardBackendInterface
import LoopThreadSlice
import SystemdBus

/// A watch's own connection to the session bus: its signal matches, the calls waiting on their
/// replies, and its pump in the run loop; closed once, failing whatever still waits. What
/// ``ServiceWatch`` and ``GnomeShellWatch`` each talk through. Used on the loop's thread only.
final class WatchChannel {
    let connection: BusConnection
    /// In the loop from ``join(_:onBroken:)`` to ``close()``.
    private(set) var pump: BusPump?
    private var matches: [BusSlot] = []
    private let pending = PendingCalls()
    private(set) var isClosed = false

    /// Connects to the session bus of `environment`.
    init(environment: [String: String]) throws(BusFailure) {
        connection = try BusConnection(environment: environment)
    }

    /// Hears the signals `rule` matches that come from `origin` (subscribe before asking, so that
    /// nothing between an answer and the first signal is lost).
    func listen(_ rule: String, from origin: SignalOrigin, handler: @escaping (BusMessage) -> Void)
        throws(BusFailure)
    {
        matches.append(try connection.addMatch(rule, from: origin, handler: handler))
    }

    /// Joins the loop of `context`; `onBroken` gets the reason once if the connection breaks.
    func join(_ context: LoopContext, onBroken: @escaping (String) -> Void) {
        // A keyboard's service or a compositor's companion speaks here (GNOME Shell's keyboard
        // only here): its signals are events, handled as soon as they come, like a display's.
        context.request(.shortTimeSlice)
        let pump = BusPump(connection, context: context)
        pump.onBroken = onBroken
        self.pump = pump
    }

    /// Sends `call`; `handler` gets the reply, or nil when it cannot be sent or the channel
    /// closed first.
    func send(_ call: BusCall, timeout: Double, handler: @escaping (BusMessage?) -> Void) {
        pending.send(call, on: connection, timeout: timeout, pump: pump, handler: handler)
    }

    /// Unsubscribes, fails the calls still waiting, and leaves the loop. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        pump?.close()
        pump = nil
        matches.removeAll()
        pending.failAll()
    }
}
