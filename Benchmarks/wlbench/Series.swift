import Foundation
import KeyboardAdapterCore
import TestSupport

/// The show and hide latencies of the three listeners, and their table.
struct Series {
    var bare: [KeyboardEvent: Latencies] = [:]
    var roundTrip: [KeyboardEvent: Latencies] = [:]
    var manager: [KeyboardEvent: Latencies] = [:]
    var kbwatch: [KeyboardEvent: Latencies] = [:]
    /// wlbare's line: the probe and, on a show, the popup query, in a process of its own.
    var floor: [KeyboardEvent: Latencies] = [:]

    mutating func add(
        _ event: KeyboardEvent, bare: Double, roundTrip: Double, manager: Double?, kbwatch: Double?, floor: Double
    ) {
        self.bare[event, default: Latencies()].append(bare)
        self.roundTrip[event, default: Latencies()].append(roundTrip)
        self.floor[event, default: Latencies()].append(floor)
        if let manager { self.manager[event, default: Latencies()].append(manager) }
        if let kbwatch { self.kbwatch[event, default: Latencies()].append(kbwatch) }
    }

    func print(_ title: String) {
        Swift.print(title)
        Swift.print(
            "  from the signal to ...".padding(toLength: 53, withPad: " ", startingAt: 0)
                + "show p50     show p99     hide p50     hide p99")
        var rows = [
            ("  bare libwayland probe: configure (hide floor)", bare),
            ("  bare probe + one round trip (wl_display_sync)", roundTrip),
            ("  wlbare (C: probe + popup query), its line", floor),
        ]
        if !manager.isEmpty { rows.append(("  KeyboardManager willShow / willHide", manager)) }
        if !kbwatch.isEmpty { rows.append(("  kbwatch stdout line", kbwatch)) }
        for (label, series) in rows {
            let show = series[.willShow] ?? Latencies()
            let hide = series[.willHide] ?? Latencies()
            Swift.print(
                label.padding(toLength: 50, withPad: " ", startingAt: 0) + millisecondsText(show.p50)
                    + millisecondsText(show.p99, width: 10) + millisecondsText(hide.p50, width: 10)
                    + millisecondsText(hide.p99, width: 10))
        }
        for (label, series, base) in [
            ("  manager vs probe, p50", manager, bare), ("  kbwatch vs probe, p50", kbwatch, bare),
            ("  bare probe + round trip vs probe, p50", roundTrip, bare),
            ("  wlbare vs probe, p50", floor, bare),
            ("  manager vs wlbare, p50", manager, floor),
            ("  kbwatch vs wlbare, p50", kbwatch, floor),
        ] where !series.isEmpty {
            func ratio(_ event: KeyboardEvent) -> Double {
                (series[event]?.p50 ?? .nan) / (base[event]?.p50 ?? .nan)
            }
            Swift.print(
                label.padding(toLength: 50, withPad: " ", startingAt: 0)
                    + String(format: "%10.2fx%25.2fx", ratio(.willShow), ratio(.willHide)))
        }
    }
}

/// Usage over the idle period: kbwatch's threads, the manager's loop thread, the bare probe's thread.
struct IdleUsage {
    var kbwatch: ProcessUsage
    var loop: ProcessUsage
    var probe: ProcessUsage

    static func sample(kbwatch pid: Int32) -> IdleUsage {
        IdleUsage(
            kbwatch: ProcessUsage.sample(pid: pid) ?? .zero,
            loop: ProcessUsage.sample(pid: getpid(), thread: "kbd-loop") ?? .zero,
            probe: ProcessUsage.sample(pid: getpid(), thread: "bare-probe") ?? .zero)
    }

    func since(_ earlier: IdleUsage) -> IdleUsage {
        IdleUsage(
            kbwatch: kbwatch.since(earlier.kbwatch), loop: loop.since(earlier.loop), probe: probe.since(earlier.probe))
    }
}
