import Synchronization

/// The calls held for ``KeyboardDelivery/descriptor`` subscriptions, and the descriptor that is
/// readable while any are held: the "descriptor plus dispatch call" that Linux event loops host.
final class HeldDeliveries: Sendable {
    private let signal: WakeSignal?
    private let calls = Mutex<[PreparedCalls.Call<@Sendable () -> Void>]>([])

    init() { signal = WakeSignal() }

    /// The readable-while-held descriptor; -1 when the process had no descriptor left for it
    /// (then ``KeyboardManager/dispatchPending()`` still works when called on a schedule).
    var descriptor: Int32 { signal?.descriptor ?? -1 }

    /// Holds `more` and makes the descriptor readable.
    func append(_ more: [PreparedCalls.Call<@Sendable () -> Void>]) {
        calls.withLock { $0 += more }
        signal?.signal()
    }

    /// Takes every held call and makes the descriptor unreadable. The descriptor is drained
    /// under the same lock as the list, so a call held meanwhile always leaves it readable.
    func take() -> [PreparedCalls.Call<@Sendable () -> Void>] {
        calls.withLock { calls in
            signal?.drain()
            defer { calls.removeAll() }
            return calls
        }
    }
}

/// Counts deliveries handed to a queue or the descriptor and not yet run, and says once when
/// some have waited too long: a main queue that nothing runs, a blocked queue or a descriptor
/// nobody reads would otherwise lose events without a word. Checked when the next delivery is
/// handed out, so it costs no timer and no wake-up.
final class DeliveryBacklog: Sendable {
    enum Target: Sendable, CaseIterable {
        case mainActor, queue, descriptor

        func advice(waited seconds: Int) -> String {
            switch self {
            case .mainActor:
                "main-actor callbacks have waited \(seconds) s: the main thread does not run the main queue "
                    + "(dispatchMain(), a RunLoop or an async main); an app with its own loop should subscribe "
                    + "with delivery .descriptor and watch KeyboardManager.pollDescriptor"
            case .queue: "callbacks on a dispatch queue have waited \(seconds) s: the queue is blocked or suspended"
            case .descriptor:
                "callbacks for delivery .descriptor have waited \(seconds) s: nothing calls dispatchPending() "
                    + "when KeyboardManager.pollDescriptor is readable"
            }
        }
    }

    private struct Count: Sendable {
        var waiting = 0
        /// When `waiting` last went from 0 up.
        var since = 0.0
        var warned = false
    }

    private let delay: Double
    private let report: @Sendable (String) -> Void
    private let counts = Mutex<[Target: Count]>([:])

    init(delay: Double, report: @escaping @Sendable (String) -> Void) {
        self.delay = delay
        self.report = report
    }

    func queued(_ target: Target, count: Int) {
        let now = MonotonicClock.now()
        let waited = counts.withLock { counts -> Double? in
            var entry = counts[target] ?? Count()
            defer { counts[target] = entry }
            if entry.waiting == 0 { entry.since = now }
            entry.waiting += count
            guard !entry.warned, entry.waiting > count, now - entry.since >= delay else { return nil }
            entry.warned = true
            return now - entry.since
        }
        if let waited { report(target.advice(waited: Int(waited.rounded()))) }
    }

    func drained(_ target: Target, count: Int) {
        guard count > 0 else { return }
        counts.withLock { counts in
            counts[target, default: Count()].waiting = max(0, counts[target, default: Count()].waiting - count)
        }
    }
}
