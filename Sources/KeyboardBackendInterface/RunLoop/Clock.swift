import Glibc

/// The monotonic clock that live backends stamp observations with.
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (system boot); never goes backwards.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The time that observations and deadlines are measured in, as a run loop sees it: the
/// monotonic clock for live backends, a recording's own clock for replay. Used on the loop's
/// thread only.
public protocol ObservationClock: AnyObject {
    /// The current time.
    func now() -> Double
    /// How many wall-clock seconds to wait until `time` comes round (0 or less: it has come); nil
    /// when no wait will bring it, because only a new event can move this clock forward.
    func secondsUntil(_ time: Double) -> Double?
}

/// The monotonic clock, for live backends.
public final class LiveClock: ObservationClock {
    /// Creates the clock.
    public init() {}
    /// `MonotonicClock.now()`.
    public func now() -> Double { MonotonicClock.now() }
    /// The difference to now.
    public func secondsUntil(_ time: Double) -> Double? { time - now() }
}
