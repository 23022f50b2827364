/// Numbers as kbwatch prints them, without Foundation's `String(format:)` (kbwatch links only
/// FoundationEssentials, which keeps it small).
enum NumberText {
    /// `value` with exactly `digits` decimals, rounded half away from zero: `0.225` → `0.225`.
    static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 9e18 else { return String(value) }
        let whole = Int64(scaled)
        let sign = value < 0 && whole != 0 ? "-" : ""
        let fraction = String(whole % scale)
        let padding = String(repeating: "0", count: max(0, digits - fraction.count))
        return digits == 0 ? sign + String(whole) : sign + String(whole / scale) + "." + padding + fraction
    }

    /// `value` padded with zeros to `width` digits: `7` → `07`.
    static func zeroPadded<T: BinaryInteger>(_ value: T, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
