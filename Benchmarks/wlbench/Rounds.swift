import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import Synchronization
import TestSupport

/// Shows and hides wvkbd by its signals, and times each to the bare probe's configure, to the
/// manager's will callback and to kbwatch's line (of those that take part).
struct Rounds {
    let keyboard: ChildProcess
    let probe: BareProbe
    /// kbwatch; nil when it does not take part.
    let kbwatch: WatchedProcess?
    /// The manager's will events with the time its callback ran; nil when no manager takes part.
    let wills: WillLog?
    /// wlbare, the C client that makes the probe and the popup query (the show's floor), with its
    /// lines (`show ...`, `hide ...`) as read.
    let floor: WatchedProcess

    func run(_ count: Int) throws -> Series {
        var series = Series()
        for _ in 0..<count {
            for (signal, event) in [(SIGUSR2, KeyboardEvent.willShow), (SIGUSR1, .willHide)] {
                let willsBefore = wills?.entries.withLock { $0.count } ?? 0
                let changesBefore = probe.changes.withLock { $0.count }
                let roundTripsBefore = probe.roundTrips.withLock { $0.count }
                let linesBefore = kbwatch?.lines.count ?? 0
                let floorBefore = floor.lines.count
                let start = MonotonicClock.now()
                keyboard.signal(signal)
                let line = kbwatch?.lines.first(from: linesBefore, timeout: 5) { $0 == event.rawValue }
                let floorWord = event == .willShow ? "show " : "hide "
                guard
                    let floorLine = floor.lines.first(from: floorBefore, timeout: 5, where: { $0.hasPrefix(floorWord) })
                else { throw BenchError("no \(floorWord)line from wlbare: \(floor.errors)") }
                try wait("\(event) after signal \(signal)") {
                    (wills?.entries.withLock { $0.count } ?? 1) > willsBefore
                        && probe.changes.withLock { $0.count } > changesBefore
                        && probe.roundTrips.withLock { $0.count } > roundTripsBefore
                }
                if let kbwatch, line == nil { throw BenchError("no \(event) line from kbwatch: \(kbwatch.errors)") }
                let will = wills?.entries.withLock { $0[willsBefore] }
                if let will, will.event != event { throw BenchError("expected \(event), got \(will.event)") }
                series.add(
                    event, bare: probe.changes.withLock { $0[changesBefore].time } - start,
                    roundTrip: probe.roundTrips.withLock { $0[roundTripsBefore] } - start,
                    manager: will.map { $0.time - start }, kbwatch: line.map { $0.time - start },
                    floor: floorLine.time - start)
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        return series
    }
}

/// The manager's will events, each with the monotonic time at which its callback ran.
final class WillLog: Sendable {
    let entries = Mutex<[(event: KeyboardEvent, time: Double)]>([])
}
