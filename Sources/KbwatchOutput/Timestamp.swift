import Glibc
import KeyboardAdapterCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Time stamps for output lines.
public enum Timestamp {
    /// `2026-11-30T06:50:01.123Z`.
    public static func iso(_ date: Date) -> String { format(date, utc: true) }

    /// `07:50:01.123` in local time.
    public static func local(_ date: Date) -> String { format(date, utc: false) }

    /// Appends `date` as ``iso(_:)`` writes it, quoted, to `out`, without making a `String`.
    package static func appendISO(_ date: Date, to out: inout JSONText) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        out.raw(byte: UInt8(ascii: "\""))
        out.zeroPadded(Int(parts.tm_year) + 1900, width: 4)
        out.raw(byte: UInt8(ascii: "-"))
        out.zeroPadded(Int(parts.tm_mon) + 1, width: 2)
        out.raw(byte: UInt8(ascii: "-"))
        out.zeroPadded(Int(parts.tm_mday), width: 2)
        out.raw(byte: UInt8(ascii: "T"))
        out.zeroPadded(Int(parts.tm_hour), width: 2)
        out.raw(byte: UInt8(ascii: ":"))
        out.zeroPadded(Int(parts.tm_min), width: 2)
        out.raw(byte: UInt8(ascii: ":"))
        out.zeroPadded(Int(parts.tm_sec), width: 2)
        out.raw(byte: UInt8(ascii: "."))
        out.zeroPadded(Int(milliseconds % 1000), width: 3)
        out.raw("Z\"")
    }

    private static func format(_ date: Date, utc: Bool) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
        let ms = Int(milliseconds % 1000)
        let clock =
            NumberText.zeroPadded(parts.tm_hour, width: 2) + ":" + NumberText.zeroPadded(parts.tm_min, width: 2) + ":"
            + NumberText.zeroPadded(parts.tm_sec, width: 2) + "." + NumberText.zeroPadded(ms, width: 3)
        guard utc else { return clock }
        let day =
            NumberText.zeroPadded(parts.tm_year + 1900, width: 4) + "-"
            + NumberText.zeroPadded(parts.tm_mon + 1, width: 2) + "-" + NumberText.zeroPadded(parts.tm_mday, width: 2)
        return day + "T" + clock + "Z"
    }
}
