import Foundation

/// The monotonic clock that live backends stamp observations with.
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (system boot); never goes backwards.
    public static func now() -> Double {
        ProcessInfo.processInfo.systemUptime
    }
}
