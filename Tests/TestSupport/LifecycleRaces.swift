import Dispatch
import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization

/// A real backend with its runs' opens and closes counted, for the lifecycle races: it forwards
/// every call to the backend it wraps (and to the runs it opens) and remembers how many runs were
/// opened and closed, and how many opens ran at once.
public final class CountedBackend: KeyboardBackend {
    private struct Counts: Sendable {
        var starts = 0
        var stops = 0
        var startsUnderWay = 0
        var mostAtOnce = 0
    }
    private let counts = Mutex(Counts())
    /// The backend every call goes to.
    public let inner: any KeyboardBackend

    /// Counts the calls made to `inner`.
    public init(_ inner: any KeyboardBackend) { self.inner = inner }

    public var name: String { inner.name }
    public var capabilities: BackendCapabilities { inner.capabilities }
    public var services: [any KeyboardService] { inner.services }
    public func availability() -> BackendAvailability { inner.availability() }
    public var reservedStrips: [ReservedStrip] { inner.reservedStrips }
    public func requestHide(of keyboard: KeyboardIdentity) throws(KeyboardControlError) {
        try inner.requestHide(of: keyboard)
    }
    public func requestLimitation(_ what: String) -> String { inner.requestLimitation(what) }
    public var hidesWithoutService: Bool { inner.hidesWithoutService }
    public func diagnose() -> [String] { inner.diagnose() }

    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        counts.withLock { counts in
            counts.starts += 1
            counts.startsUnderWay += 1
            counts.mostAtOnce = max(counts.mostAtOnce, counts.startsUnderWay)
        }
        defer { counts.withLock { $0.startsUnderWay -= 1 } }
        do {
            return CountedRun(try inner.open(in: context, sink: sink, app: app), backend: self)
        } catch {
            // A run that did not open needs no close: it counts as closed.
            counts.withLock { $0.stops += 1 }
            throw error
        }
    }

    /// A run of the inner backend whose close is counted.
    private final class CountedRun: BackendConnection {
        let inner: any BackendConnection
        let backend: CountedBackend

        init(_ inner: any BackendConnection, backend: CountedBackend) {
            self.inner = inner
            self.backend = backend
        }

        func appIdentityChanged(_ identity: AppIdentity) { inner.appIdentityChanged(identity) }

        func close() {
            backend.counts.withLock { $0.stops += 1 }
            inner.close()
        }
    }

    /// Opens and closes of runs made so far.
    public var calls: (starts: Int, stops: Int) { counts.withLock { ($0.starts, $0.stops) } }
    /// The most starts that were under way at one time.
    public var mostStartsAtOnce: Int { counts.withLock { $0.mostAtOnce } }
}

/// The manager's lifecycle under the races an app can make, on a real backend with a keyboard
/// visible before the manager starts: restarts from inside callbacks, stops from two threads,
/// starts racing stops, a subscriber's owner let go in its own callback. Each race must end
/// within its bound (a hang fails it, naming the race), leave the manager as it says it is,
/// and leave the backend's starts and stops balanced: one stop for every start once stopped,
/// and never two starts at once.
public enum LifecycleRaces {
    /// Runs every race on managers of `makeBackend()` backends (a new one for each race), each
    /// of which must report `keyboard` (a keyboard id's prefix) as visible at start. `rounds` is
    /// the number of start/stop races.
    public static func runAll(
        keyboard: String, rounds: Int = 1000, makeBackend: @escaping @Sendable () -> any KeyboardBackend
    ) throws {
        let started = Date()
        try restartFromCallback(keyboard: keyboard, onEvent: .willShow, makeBackend: makeBackend)
        try restartFromCallback(keyboard: keyboard, onEvent: .didShow, makeBackend: makeBackend)
        try stopFromQueueWhileAnotherThreadStops(keyboard: keyboard, makeBackend: makeBackend)
        let racing = Date()
        try startRacingStop(rounds: rounds, makeBackend: makeBackend)
        let raced = Date()
        try ownerReleasedInItsCallback(keyboard: keyboard, makeBackend: makeBackend)
        print(
            "lifecycle races on \(makeBackend().name): restarts and two stops in "
                + "\(Int(racing.timeIntervalSince(started) * 1000)) ms, \(rounds) start/stop races in "
                + "\(Int(raced.timeIntervalSince(racing) * 1000)) ms")
    }

    /// An immediate subscriber that stops and starts the manager on its first `event` (`willShow`:
    /// the keyboards reported by the backend's start; `didShow`: a later turn of the loop, when
    /// the show settles): the new run reports the keyboard again.
    public static func restartFromCallback(
        keyboard: String, onEvent event: KeyboardEvent, makeBackend: @Sendable () -> any KeyboardBackend
    ) throws {
        let backend = CountedBackend(makeBackend())
        let manager = KeyboardManager(backend: backend)
        let restarts = Atomic<Int>(0)
        let restarted = Atomic<Bool>(false)
        let settledAfterRestart = Atomic<Bool>(false)
        let seen = Mutex<[KeyboardEvent]>([])
        let token = manager.on(event, delivery: .immediate) { update in
            guard update.keyboard.id.hasPrefix(keyboard), restarts.add(1, ordering: .relaxed).newValue == 1 else {
                return
            }
            manager.stop()
            try? manager.start()
            restarted.store(true, ordering: .releasing)
        }
        let all = manager.onEvent(delivery: .immediate) { update in
            guard update.keyboard.id.hasPrefix(keyboard) else { return }
            seen.withLock { $0.append(update.event) }
            if update.event == .didShow, restarted.load(ordering: .acquiring) {
                settledAfterRestart.store(true, ordering: .releasing)
            }
        }
        defer {
            token.cancel()
            all.cancel()
        }
        try bounded("a restart from an immediate \(event) callback") { try manager.start() }
        try Wait.require("the restarted manager's \(event) (events: \(seen.withLock { $0 }))", timeout: 10) {
            restarts.load(ordering: .relaxed) >= 2
        }
        guard manager.isRunning else { throw TestFailure("restarted from \(event): the manager does not run") }
        // The second run's show settles (its willShow came inside the restart's start).
        let settled = Wait.until(timeout: 10) { settledAfterRestart.load(ordering: .acquiring) }
        guard settled else {
            throw TestFailure("no didShow from the run restarted from \(event): events \(seen.withLock { $0 })")
        }
        guard manager.visibleKeyboards.contains(where: { $0.keyboard.id.hasPrefix(keyboard) }) else {
            throw TestFailure("restarted from \(event): the keyboard is not among the visible ones")
        }
        try bounded("a stop after the restart from \(event)") { manager.stop() }
        try expectBalanced(backend, "restarted from \(event)")
        guard backend.calls.starts == 2 else {
            throw TestFailure("restarted from \(event): \(backend.calls.starts) starts, not 2")
        }
    }

    /// An immediate subscriber hands a stop to a queue on the first show, while the test's thread
    /// stops the manager too: both return, the backend stopped once.
    public static func stopFromQueueWhileAnotherThreadStops(
        keyboard: String, makeBackend: @Sendable () -> any KeyboardBackend
    ) throws {
        let backend = CountedBackend(makeBackend())
        let manager = KeyboardManager(backend: backend)
        let queue = DispatchQueue(label: "lifecycle-race")
        let stopped = DispatchSemaphore(value: 0)
        let shown = DispatchSemaphore(value: 0)
        let token = manager.on(.willShow, delivery: .queue(queue)) { update in
            guard update.keyboard.id.hasPrefix(keyboard) else { return }
            shown.signal()
            manager.stop()
            stopped.signal()
        }
        defer { token.cancel() }
        try bounded("a start before two stops") { try manager.start() }
        guard shown.wait(timeout: .now() + 10) == .success else { throw TestFailure("no willShow on the queue") }
        try bounded("a stop beside the queue's stop") { manager.stop() }
        guard stopped.wait(timeout: .now() + 20) == .success else {
            throw TestFailure("the queue's stop did not return within 20 s")
        }
        guard !manager.isRunning else { throw TestFailure("two stops: the manager still runs") }
        try expectBalanced(backend, "two stops")
    }

    /// `rounds` times: a stop and a start on two threads at once, after a start. The backend runs
    /// exactly when the manager says it does, and is stopped as often as started.
    public static func startRacingStop(rounds: Int, makeBackend: @Sendable () -> any KeyboardBackend) throws {
        let backend = CountedBackend(makeBackend())
        let manager = KeyboardManager(backend: backend)
        try bounded("\(rounds) start/stop races", seconds: 300) {
            for round in 0..<rounds {
                try manager.start()
                let group = DispatchGroup()
                DispatchQueue.global().async(group: group) { manager.stop() }
                DispatchQueue.global().async(group: group) { try? manager.start() }
                guard group.wait(timeout: .now() + 20) == .success else {
                    throw TestFailure("race \(round): a start or a stop did not return within 20 s")
                }
                let (starts, stops) = backend.calls
                let running = manager.isRunning
                guard starts - stops == (running ? 1 : 0) else {
                    throw TestFailure("race \(round): running \(running) with \(starts) starts and \(stops) stops")
                }
            }
            manager.stop()
        }
        try expectBalanced(backend, "\(rounds) start/stop races")
    }

    /// An object that owns the only token of an immediate subscriber, let go of inside that
    /// subscriber's callback (the token's release cancels the subscription): the callback
    /// returns, the subscription is gone, the manager goes on.
    public static func ownerReleasedInItsCallback(
        keyboard: String, makeBackend: @Sendable () -> any KeyboardBackend
    ) throws {
        final class Owner: Sendable {
            let token = Mutex<KeyboardSubscription?>(nil)
        }
        let backend = CountedBackend(makeBackend())
        let manager = KeyboardManager(backend: backend)
        let holder = Mutex<Owner?>(Owner())
        let calls = Atomic<Int>(0)
        // The owner holds the only reference to the token.
        holder.withLock { owner in
            owner?.token.withLock { token in
                token = manager.on(.willShow, delivery: .immediate) { update in
                    guard update.keyboard.id.hasPrefix(keyboard) else { return }
                    calls.add(1, ordering: .relaxed)
                    // The last reference to the owner, and with it the token, goes here.
                    holder.withLock { $0 = nil }
                }
            }
        }
        try bounded("a start whose first callback releases its own subscription") { try manager.start() }
        try Wait.require("the callback that lets its owner go", timeout: 10) { calls.load(ordering: .relaxed) == 1 }
        guard manager.subscriberCount == 0 else {
            throw TestFailure("the released owner's subscription is still registered")
        }
        try bounded("a stop and a start after the owner went") {
            manager.stop()
            try manager.start()
            manager.stop()
        }
        guard calls.load(ordering: .relaxed) == 1 else { throw TestFailure("a cancelled subscriber was called again") }
        try expectBalanced(backend, "the owner released in its callback")
    }

    private static func expectBalanced(_ backend: CountedBackend, _ race: String) throws {
        let (starts, stops) = backend.calls
        guard starts == stops, starts > 0 else {
            throw TestFailure("\(race): \(starts) starts and \(stops) stops of the backend")
        }
        guard backend.mostStartsAtOnce == 1 else {
            throw TestFailure("\(race): \(backend.mostStartsAtOnce) starts of the backend at once")
        }
    }

    /// Runs `work` on a thread of its own and throws, naming `what`, when it has not returned
    /// within `seconds` (the thread is then left blocked: the test has failed already).
    private static func bounded(
        _ what: String, seconds: Double = 30, _ work: @escaping @Sendable () throws -> Void
    ) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Thread.detachNewThread {
            do { try work() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            throw TestFailure("\(what): no return within \(Int(seconds)) s (a hang)")
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

extension LifecycleRaces {
    /// A copy of the `kbraces` runner in `runtime`'s `bin` directory, which the session's user can
    /// reach (the build directory may be under /root).
    public static func runnerCopy(in runtime: RuntimeDirectory) throws -> String {
        let built = URL(fileURLWithPath: Kbwatch.path).deletingLastPathComponent().appendingPathComponent("kbraces")
            .path
        guard FileManager.default.isExecutableFile(atPath: built) else {
            throw TestFailure("kbraces is not built beside kbwatch (\(built))")
        }
        let bin = runtime.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let copy = bin + "/kbraces"
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: built, toPath: copy)
        }
        chmod(copy, 0o755)
        return copy
    }

    /// Throws unless `run` (the runner's exit status and output) says every race passed; returns
    /// its line of figures.
    @discardableResult
    public static func expectPassed(_ run: (status: Int32, output: String)) throws -> String {
        guard run.status == 0,
            let line = run.output.split(separator: "\n").last(where: { $0.hasPrefix("lifecycle races") })
        else { throw TestFailure("kbraces exited \(run.status):\n\(run.output)") }
        return String(line)
    }
}
