import KeyboardBackendInterface
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
/// nobody reads would otherwise lose events without a word. The wait is a deadline of the
/// manager's run loop (``BacklogSource``), so the warning comes when the delay is up, whether or
/// not another event follows; it costs no timer and no wake-up while nothing waits.
final class DeliveryBacklog: Sendable {
    enum Target: Sendable, CaseIterable {
        case mainActor, queue, descriptor

        func advice(waited seconds: Double) -> String {
            let waited = NumberWording.seconds(seconds)
            return switch self {
            case .mainActor:
                "main-actor callbacks have waited \(waited): the main thread does not run the main queue "
                    + "(dispatchMain(), a RunLoop or an async main); an app with its own loop should subscribe "
                    + "with delivery .descriptor and watch KeyboardManager.pollDescriptor"
            case .queue: "callbacks on a dispatch queue have waited \(waited): the queue is blocked or suspended"
            case .descriptor:
                "callbacks for delivery .descriptor have waited \(waited): nothing calls dispatchPending() "
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
    /// Calls handed out and not yet made, over every target: the loop asks for the next warning
    /// before every wait, and with nothing waiting (almost always) the answer needs no lock.
    private let waiting = Atomic<Int>(0)

    init(delay: Double, report: @escaping @Sendable (String) -> Void) {
        self.delay = delay
        self.report = report
    }

    func queued(_ target: Target, count: Int) {
        let now = MonotonicClock.now()
        // A loop whose clock is not the monotonic one (a replay) has no deadline for it: the
        // check is made whenever something more is handed out, under the same lock.
        let overdue = counts.withLock { counts in
            var entry = counts[target] ?? Count()
            if entry.waiting == 0 { entry.since = now }
            entry.waiting += count
            counts[target] = entry
            waiting.store(Self.total(counts), ordering: .relaxed)
            return Self.takeOverdue(now: now, delay: delay, in: &counts)
        }
        tell(overdue)
    }

    func drained(_ target: Target, count: Int) {
        guard count > 0 else { return }
        counts.withLock { counts in
            counts[target, default: Count()].waiting = max(0, counts[target, default: Count()].waiting - count)
            waiting.store(Self.total(counts), ordering: .relaxed)
        }
    }

    /// When the next warning is due, on the monotonic clock; nil while nothing waits unwarned.
    var nextWarning: Double? {
        // Calls are handed out by the loop's own deliveries, before it next asks.
        guard waiting.load(ordering: .relaxed) > 0 else { return nil }
        return counts.withLock { counts in
            // Asked before every wait: a plain loop, which allocates nothing.
            var earliest: Double?
            for count in counts.values where count.waiting > 0 && !count.warned {
                earliest = min(earliest ?? .infinity, count.since + delay)
            }
            return earliest
        }
    }

    /// Calls waiting over every target.
    private static func total(_ counts: [Target: Count]) -> Int {
        counts.values.reduce(0) { $0 + $1.waiting }
    }

    /// Says once per target that its deliveries have waited `delay` or more by `now`.
    func warnOverdue(now: Double) {
        tell(counts.withLock { counts in Self.takeOverdue(now: now, delay: delay, in: &counts) })
    }

    /// Marks as warned, and returns, the targets whose deliveries have waited `delay` by `now`.
    private static func takeOverdue(now: Double, delay: Double, in counts: inout [Target: Count]) -> [(Target, Double)]
    {
        var overdue: [(Target, Double)] = []
        for target in Target.allCases {
            guard var entry = counts[target], entry.waiting > 0, !entry.warned, now - entry.since >= delay else {
                continue
            }
            entry.warned = true
            counts[target] = entry
            overdue.append((target, now - entry.since))
        }
        return overdue
    }

    /// Reports the overdue targets; outside the lock, as the report is the app's closure.
    private func tell(_ overdue: [(Target, Double)]) {
        for (target, waited) in overdue { report(target.advice(waited: waited)) }
    }
}

/// The backlog's warning as a deadline of the manager's run loop (whose clock is the monotonic
/// one for live backends).
final class BacklogSource: LoopSource, Sendable {
    private let backlog: DeliveryBacklog

    init(_ backlog: DeliveryBacklog) { self.backlog = backlog }

    var deadline: Double? { backlog.nextWarning }

    func deadlineReached() { backlog.warnOverdue(now: MonotonicClock.now()) }
}

/// Seconds for people: whole seconds as `2 s`, others with one decimal (`0.5 s`).
enum NumberWording {
    static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10)) s" : "\(tenths / 10) s"
    }
}
