/// What only a run loop's own thread may touch: adding and removing its sources, its clock, and
/// its thread's scheduling. The loop hands one to work it runs on its thread (a backend's
/// `start`, ``KeyboardRunLoop/performAndWait(_:)-((LoopContext)->T)``); it is not `Sendable`, so it
/// cannot be captured by work for another thread, and each use checks that it is on the loop's
/// thread (a misuse stops the process with a message rather than corrupting the loop).
///
/// A source that must remove itself later (when its connection breaks) keeps the context it was
/// added with; the context holds the loop weakly.
public struct LoopContext {
    private weak var loop: KeyboardRunLoop?

    init(_ loop: KeyboardRunLoop) { self.loop = loop }

    /// The loop's `Sendable` handle, for work handed in from other threads and for stopping.
    public var runLoop: KeyboardRunLoop? { loop }

    /// Adds a source; it is asked for its descriptor and deadline from the loop's next turn on.
    public func add(_ source: any LoopSource) { checked()?.add(source) }

    /// Adds a source with a deadline and no descriptor: the loop asks it only for its deadline and
    /// calls its `deadlineReached()`, never `prepareToWait()` or `handle(events:)`, so a turn
    /// spends nothing on it.
    package func addDeadlineOnly(_ source: any LoopSource) { checked()?.add(source, waitsOnDescriptor: false) }

    /// Removes a source (also from inside its own callbacks); it is not called again.
    public func remove(_ source: any LoopSource) { checked()?.remove(source) }

    /// The clock deadlines are measured in: the monotonic clock, unless replaced (replay plays a
    /// recording on a clock of its own).
    public var clock: any ObservationClock {
        get { checked()?.clock ?? LiveClock() }
        nonmutating set { checked()?.clock = newValue }
    }

    /// Asks the loop to apply `tuning` to its thread; the loop does it once per tuning name, for
    /// every backend and service that asks, and says what it did.
    @discardableResult
    public func request(_ tuning: LoopThreadTuning) -> String { checked()?.apply(tuning) ?? "" }

    /// The tunings the loop's thread has, by name, with what each did.
    public var appliedTunings: [String: String] { checked()?.appliedTunings ?? [:] }

    private func checked() -> KeyboardRunLoop? {
        guard let loop else { return nil }
        precondition(loop.isCurrent || !loop.isRunning, "a LoopContext was used off its run loop's thread")
        return loop
    }
}

/// A change to the run loop's thread that a plugin asks for (the core makes no system calls of its
/// own for it): for example a shorter time slice, so that an event is handled as soon as it
/// comes. The loop applies each tuning once, on its own thread.
public struct LoopThreadTuning: Sendable {
    /// What the tuning is, also its identity: a second request of the same name does nothing.
    public var name: String
    /// Applies the tuning to the calling thread (the loop's) and says what it did.
    public var apply: @Sendable () -> String

    /// Creates a tuning.
    public init(name: String, apply: @escaping @Sendable () -> String) {
        self.name = name
        self.apply = apply
    }
}
