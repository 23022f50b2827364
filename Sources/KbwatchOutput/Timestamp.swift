import Glibc
import KeyboardAdapterCore
import KeyboardJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Time stamps for output lines.
package enum Timestamp {
    /// `2026-11-30T06:50:01.123Z`.
    package static func iso(_ date: Date) -> String { format(date, utc: true) }

    /// `07:50:01.123` in local time.
    package static func local(_ date: Date) -> String { format(date, utc: false) }

    /// The text of the last second written (`2026-11-30T06:50:01`): lines come many to a second,
    /// and the C library's conversion of a time to a date takes its time-zone lock each time.
    package struct SecondCache {
        fileprivate var second = Int64.min
        fileprivate var text: [UInt8] = []

        /// An empty cache.
        package init() {}
    }

    /// Appends `date` as ``iso(_:)`` writes it, quoted, to `out`, without making a `String`.
    package static func appendISO(_ date: Date, to out: inout JSONText) {
        var cache = SecondCache()
        appendISO(date, to: &out, cache: &cache)
    }

    /// Appends `date` as ``iso(_:)`` writes it, quoted, to `out`; the date and time of its second
    /// come from `cache` when it holds that second.
    package static func appendISO(_ date: Date, to out: inout JSONText, cache: inout SecondCache) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        if milliseconds / 1000 != cache.second {
            var seconds = time_t(milliseconds / 1000)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            var text = JSONText(capacity: 32)
            text.zeroPadded(Int(parts.tm_year) + 1900, width: 4)
            text.raw(byte: UInt8(ascii: "-"))
            text.zeroPadded(Int(parts.tm_mon) + 1, width: 2)
            text.raw(byte: UInt8(ascii: "-"))
            text.zeroPadded(Int(parts.tm_mday), width: 2)
            text.raw(byte: UInt8(ascii: "T"))
            text.zeroPadded(Int(parts.tm_hour), width: 2)
            text.raw(byte: UInt8(ascii: ":"))
            text.zeroPadded(Int(parts.tm_min), width: 2)
            text.raw(byte: UInt8(ascii: ":"))
            text.zeroPadded(Int(parts.tm_sec), width: 2)
            cache.text = text.withBytes { Array($0) }
            cache.second = milliseconds / 1000
        }
        out.raw(byte: UInt8(ascii: "\""))
        cache.text.withUnsafeBufferPointer { out.raw($0) }
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
