import Dispatch
import Glibc
import Synchronization

/// One thread blocked in `poll()` on its sources' descriptors and a wake descriptor, with the
/// timeout set to the earliest deadline. It uses no timer objects and makes no wake-up while
/// nothing happens. Every backend runs on one; a `KeyboardManager` owns one per start, and
/// only the package makes and starts loops: a backend is handed its loop's ``LoopContext``.
///
/// Threading: this is the `Sendable` handle: ``perform(_:)``, ``performAndWait(_:)-(()->T)``,
/// ``stop()`` and ``isCurrent`` may be called from any thread, ``stop()`` also from a callback on
/// the loop itself. What belongs to the loop's thread (its sources, its clock, its thread's
/// scheduling) is reached only through the ``LoopContext`` the loop hands to work on that thread
/// (a backend's `start`, ``performAndWait(_:)-((LoopContext)->T)``).
public final class KeyboardRunLoop: @unchecked Sendable {
    // @unchecked: `sources`, `waiting`, `sourceChanges`, `calledThisPass`, `clock` and `tunings`
    // are only touched on the loop's thread, through a LoopContext (which checks it), or before
    // the loop starts or after it ended, when no other thread runs loop code; everything shared
    // is behind `shared` or atomic.

    private struct Shared: Sendable {
        var tasks: [@Sendable () -> Void] = []
        var stopping = false
        var started = false
        var ended = false
    }

    private let wake: WakeSignal
    private let shared = Mutex(Shared())
    /// Set with `shared.stopping` (under its lock): read on every turn without taking the lock.
    private let stopping = Atomic<Bool>(false)
    /// Set under `shared`'s lock whenever a task is queued, cleared when the tasks are taken:
    /// a turn with nothing handed in takes no lock.
    private let hasTasks = Atomic<Bool>(false)
    /// The loop thread's id (`pthread_t` is an integer on Linux); 0 before it starts.
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    private var sources: [any LoopSource] = []
    /// The sources with a descriptor (all but those added as deadline-only): the ones a turn
    /// prepares and hands poll's events to.
    private var waiting: [any LoopSource] = []
    /// Counts additions and removals of sources: a turn whose count did not change knows every
    /// source it prepared is still there without looking.
    private var sourceChanges = 0
    /// The sources one pass of `fireDeadlines` has called (loop thread only).
    private var calledThisPass: [ObjectIdentifier] = []
    /// The thread tunings applied so far, by name.
    private var tunings: [String: String] = [:]

    /// The clock deadlines are measured in; the monotonic clock unless a backend (replay) sets
    /// its own through its context.
    package var clock: any ObservationClock = LiveClock()

    /// Creates a loop; nothing runs until `start(name:)`. Throws when no descriptor is left.
    package init() throws(BackendFailure) {
        guard let wake = WakeSignal() else {
            throw BackendFailure(backend: "run loop", kind: .other, reason: WakeSignal.openFailure)
        }
        self.wake = wake
    }

    /// Starts the loop's thread, named `name` for `top` and `/proc` (15 characters at most).
    package func start(name: String = "kbd-loop") throws(BackendFailure) {
        // Started before the thread exists: from its first instruction on, the loop runs as far
        // as every other thread can tell, so none of them runs handed-in work itself (or lets a
        // stop go by without waiting) while the loop's thread already works on the same state.
        shared.withLock { $0.started = true }
        let context = Unmanaged.passRetained(StartContext(loop: self, name: name)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                let start = Unmanaged<StartContext>.fromOpaque(context!).takeRetainedValue()
                start.loop.threadID.store(UInt(pthread_self()), ordering: .releasing)
                // Foundation's Thread.name does not reach the kernel on Linux; this does.
                let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
                if comm >= 0 {
                    _ = start.name.withCString { write(comm, $0, strlen($0)) }
                    close(comm)
                }
                start.loop.run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<StartContext>.fromOpaque(context).release()
            // Never ran after all: what was handed in meanwhile runs here, a stop that waits is let go.
            let stranded = shared.withLock { shared in
                shared.started = false
                hasTasks.store(false, ordering: .relaxed)
                defer { shared.tasks.removeAll() }
                return shared.tasks
            }
            for task in stranded { task() }
            finished.signal()
            throw BackendFailure(backend: "run loop", kind: .other, reason: "cannot start a thread (error \(status))")
        }
        pthread_detach(thread)
    }

    private final class StartContext {
        let loop: KeyboardRunLoop
        let name: String
        init(loop: KeyboardRunLoop, name: String) {
            self.loop = loop
            self.name = name
        }
    }

    /// True on the loop's own thread.
    public var isCurrent: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    /// Adds a source; on the loop's thread (through a ``LoopContext``). One that does not wait on
    /// a descriptor is only asked for its deadline.
    func add(_ source: any LoopSource, waitsOnDescriptor: Bool = true) {
        sources.append(source)
        if waitsOnDescriptor { waiting.append(source) }
        sourceChanges &+= 1
    }

    /// Removes a source (also from inside its own callbacks); on the loop's thread.
    func remove(_ source: any LoopSource) {
        sources.removeAll { $0 === source }
        waiting.removeAll { $0 === source }
        sourceChanges &+= 1
    }

    /// Applies `tuning` to the loop's thread unless one of that name already was; on the loop's
    /// thread. Returns what it did.
    func apply(_ tuning: LoopThreadTuning) -> String {
        if let done = tunings[tuning.name] { return done }
        let outcome = tuning.apply()
        tunings[tuning.name] = outcome
        return outcome
    }

    /// The tunings applied to the loop's thread, by name, with what each did.
    var appliedTunings: [String: String] { tunings }

    /// Runs `work` on the loop's thread at its next turn. When the loop never started or has
    /// ended, `work` runs at once on the calling thread: nothing is ever dropped.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        let queued = shared.withLock { shared -> Bool in
            guard shared.started, !shared.ended else { return false }
            shared.tasks.append(work)
            hasTasks.store(true, ordering: .releasing)
            return true
        }
        if queued { wake.signal() } else { work() }
    }

    /// Runs `work` on the loop's thread with the loop's context, and waits for it: at once when
    /// called there (or when the loop is not running), otherwise at the loop's next turn.
    public func performAndWait<T: Sendable>(_ work: @escaping @Sendable (LoopContext) throws -> T) throws -> T {
        try performAndWait { [self] in try work(LoopContext(self)) }
    }

    /// Runs `work` on the loop's thread and waits for it: at once when called there (or when the
    /// loop is not running), otherwise at the loop's next turn.
    public func performAndWait<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        if isCurrent { return try work() }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        perform {
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Ends the loop after the callback under way. From another thread, returns once the loop's
    /// thread has made its last call; from the loop itself, returns at once. Idempotent.
    public func stop() {
        let wait = shared.withLock { shared -> Bool in
            shared.stopping = true
            stopping.store(true, ordering: .releasing)
            return shared.started
        }
        wake.signal()
        guard wait, !isCurrent else { return }
        finished.wait()
        // Others waiting for the same end are let through too.
        finished.signal()
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// True while the loop's thread runs (started and not yet ended).
    var isRunning: Bool { shared.withLock { $0.started && !$0.ended } }

    private func runTasks() {
        // A task queued after this look also signals the wake descriptor, so poll() returns at
        // once and the next turn runs it.
        guard hasTasks.load(ordering: .acquiring) else { return }
        let tasks = shared.withLock { shared in
            hasTasks.store(false, ordering: .relaxed)
            defer { shared.tasks.removeAll() }
            return shared.tasks
        }
        for task in tasks { task() }
    }

    private func run() {
        var descriptors: [pollfd] = []
        while !isStopping {
            runTasks()
            // Sources may be added or removed by any callback: each turn works on a snapshot and
            // skips what was removed meanwhile.
            let turn = waiting
            let changes = sourceChanges
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0))
            // By index: each source is called where it is in the snapshot, not copied (and retained) out.
            for index in turn.indices {
                let wanted = turn[index].prepareToWait()
                descriptors.append(pollfd(fd: wanted.descriptor, events: wanted.events, revents: 0))
            }
            let timeout = isStopping ? 0 : waitMilliseconds()
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 {
                for index in descriptors.indices { descriptors[index].revents = 0 }
            }
            if descriptors[0].revents != 0 { wake.drain() }
            for index in turn.indices where sourceChanges == changes || isRegistered(turn[index]) {
                turn[index].handle(events: descriptors[index + 1].revents)
            }
            runTasks()
            fireDeadlines()
        }
        // The loop's state is let go of here, and what was handed in runs here, before the loop
        // says it ended: from then on other threads run what they hand in themselves and may
        // touch that state (a backend's close removes its source), so this thread must be done
        // with it first.
        while true {
            runTasks()
            sources.removeAll()
            waiting.removeAll()
            let ended = shared.withLock { shared -> Bool in
                guard shared.tasks.isEmpty else { return false }
                shared.ended = true
                return true
            }
            if ended { break }
        }
        // A thread made later may be given the same id: this one is no longer the loop's.
        threadID.store(0, ordering: .releasing)
        finished.signal()
    }

    private func isRegistered(_ source: any LoopSource) -> Bool { sources.contains { $0 === source } }

    /// The poll timeout for the earliest deadline: -1 (block) when none can come by waiting.
    private func waitMilliseconds() -> Int32 {
        var shortest: Double?
        for index in sources.indices {
            guard let deadline = sources[index].deadline, let wait = clock.secondsUntil(deadline) else { continue }
            shortest = min(shortest ?? wait, wait)
        }
        guard let shortest else { return -1 }
        // Rounded up, so that the deadline has come when poll returns.
        return Int32(max(0, min(shortest * 1000, 3_600_000)).rounded(.up))
    }

    /// Calls the sources whose deadline has come, earliest first, each at most once per pass;
    /// each call may move deadlines. A source that is due again after its call (one that caps its
    /// work per turn, a recording played fast) waits for the next pass, after `poll()`, so that
    /// every descriptor gets its turn in between: a flood on one never starves the others.
    private func fireDeadlines() {
        // The list of the sources called is touched only once one was: a pass that fires
        // nothing does no bookkeeping.
        var fired = false
        defer { if fired { calledThisPass.removeAll(keepingCapacity: true) } }
        while !isStopping {
            let now = clock.now()
            var earliest: (index: Int, deadline: Double)?
            for index in sources.indices {
                guard let deadline = sources[index].deadline, deadline <= now else { continue }
                if let current = earliest, current.deadline <= deadline { continue }
                if fired, calledThisPass.contains(ObjectIdentifier(sources[index])) { continue }
                earliest = (index, deadline)
            }
            guard let earliest else { return }
            // Held while it runs: its call may add or remove sources.
            let source = sources[earliest.index]
            calledThisPass.append(ObjectIdentifier(source))
            fired = true
            source.deadlineReached()
        }
    }
}
