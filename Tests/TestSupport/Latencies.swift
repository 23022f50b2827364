import Foundation

/// Measured durations in seconds, summarised by nearest-rank percentiles.
public struct Latencies: Sendable {
    /// The durations, in the order measured.
    public private(set) var values: [Double] = []

    /// An empty series.
    public init() {}

    /// Adds one duration.
    public mutating func append(_ seconds: Double) { values.append(seconds) }

    /// How many were measured.
    public var count: Int { values.count }

    /// The nearest-rank percentile `p` (0...100); NaN when empty.
    public func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }

    /// The median.
    public var p50: Double { percentile(50) }
    /// The 90th percentile.
    public var p90: Double { percentile(90) }
    /// The 99th percentile.
    public var p99: Double { percentile(99) }
}

/// Seconds as milliseconds for reports, right-aligned: "   0.253 ms".
public func millisecondsText(_ seconds: Double, width: Int = 8) -> String {
    let text = String(format: "%.3f ms", seconds * 1000)
    return String(repeating: " ", count: max(0, width + 3 - text.count)) + text
}
