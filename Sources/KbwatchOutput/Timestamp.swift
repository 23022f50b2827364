import Foundation

/// Time stamps for output lines.
public enum Timestamp {
    /// `2026-11-30T06:50:01.123Z`.
    public static func iso(_ date: Date) -> String { format(date, utc: true) }

    /// `07:50:01.123` in local time.
    public static func local(_ date: Date) -> String { format(date, utc: false) }

    private static func format(_ date: Date, utc: Bool) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
        let ms = Int(milliseconds % 1000)
        let clock = String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, ms)
        guard utc else { return clock }
        return String(format: "%04d-%02d-%02dT", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday) + clock + "Z"
    }
}
