// servicebench: the session service's fan-out, in one run per number of subscribers. On a
// private Xvfb with xvkbd and a private session bus: `kbwatch --serve --stay`, servicebare (C,
// sd-bus: N subscribers on N connections, each stamping the broadcast Event it receives), and
// `kbwatch --format %e` watching the display itself. The keyboard window is moved by configure
// requests (XMoveWindow from a connection of its own), one at a time; for each move, from the
// request to
// - kbwatch's own willChangeFrame line (what a direct watcher sees),
// - the first subscriber's Event, and the last (the Nth) one's (a move sends no Verdict);
// then the CPU per event of the service, of the bus daemon that routes its signals and of the N
// subscribers together (each process's time on a CPU over the moves, from schedstat), and the
// service's memory with N subscribers. Last, for comparison, 100 clients that listen to the
// broadcast Event without subscribing (no verdict of their own).
//
// Usage: servicebench [MOVES] (default 200), for 1, 10 and 100 subscribers, then 100 listeners.

import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import TestSupport

let moves = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200

func run(subscribers: Int, broadcast: Bool = false) throws {
    try measure(subscribers: subscribers, moves: moves, broadcast: broadcast)
}

func column(_ text: String, _ width: Int = 48) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

/// `servicebare`, built beside this benchmark.
func barePath() -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("servicebare").path
}

/// With `broadcast`, the clients listen to the broadcast `Event` without subscribing (no
/// verdict of their own).
func measure(subscribers: Int, moves: Int, broadcast: Bool) throws {
    let session = try X11Session()
    defer { session.stop() }
    let bus = try SessionBus(directory: session.directory, home: session.directory + "/home")
    defer { bus.stop() }
    let environment = session.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
    try session.start("xvkbd", ["-geometry", "640x200+320+600"])
    let service = try Kbwatch.start(
        ["--serve", "--stay", "--backend", "x11", "--max-subscribers-per-client", "1000"], environment: environment)
    defer { service.stop() }
    try bus.waitForName("org.keyboardadapter.Watcher")
    let direct = try Kbwatch.watch(["--backend", "x11", "--format", "%e %i"], environment: environment)
    defer { direct.stop() }
    guard let shown = direct.lines.first(from: 0, timeout: 20, where: { $0.hasPrefix("didShow") }),
        let window = UInt(shown.text.split(separator: " ").last?.dropFirst("x11:0x".count) ?? "", radix: 16)
    else { throw TestFailure("kbwatch did not report xvkbd shown: \(direct.lines.all.map(\.text))") }
    let clients = try WatchedProcess(
        barePath(), [String(subscribers)] + (broadcast ? ["event"] : []), environment: environment)
    defer { clients.stop() }
    guard clients.lines.first(from: 0, timeout: 60, where: { $0 == "ready" }) != nil else {
        throw TestFailure("servicebare did not subscribe: \(clients.errors)")
    }
    Thread.sleep(forTimeInterval: 1)

    let driver = try XTestClient.connect(session.display)
    driver.sync()
    var own = Latencies()
    var first = Latencies()
    var last = Latencies()
    var missed = 0
    let before = ProcessUsage.sample(pid: service.pid)
    let daemonBefore = ProcessUsage.sample(pid: bus.process.pid)
    let clientsBefore = ProcessUsage.sample(pid: clients.pid)
    for step in 0..<moves {
        let directMark = direct.lines.count
        let clientMark = clients.lines.count
        let sent = MonotonicClock.now()
        driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
        let line = direct.lines.first(from: directMark, timeout: 5) { $0.hasPrefix("willChangeFrame") }
        var received: [Double] = []
        let all = Wait.until(timeout: 5, interval: 0.0005) {
            received = clients.lines.all.dropFirst(clientMark).compactMap { entry in
                let parts = entry.text.split(separator: " ")
                guard parts.count == 3, parts[2] == "willChangeFrame" else { return nil }
                return Double(parts[1])
            }
            return received.count >= subscribers
        }
        if let line, all {
            own.append(line.time - sent)
            first.append(received.min()! - sent)
            last.append(received.max()! - sent)
        } else {
            missed += 1
        }
        // Let the move settle (50 ms) so that the next one is a new change.
        Thread.sleep(forTimeInterval: 0.07)
    }
    let after = ProcessUsage.sample(pid: service.pid)
    let daemonAfter = ProcessUsage.sample(pid: bus.process.pid)
    let clientsAfter = ProcessUsage.sample(pid: clients.pid)
    let who =
        broadcast
        ? "\(subscribers) listeners of the broadcast Event"
        : "\(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
    print("\(who), \(moves) moves (\(missed) missed)    p50         p99")
    for (name, values) in [
        ("  request -> kbwatch's own line", own), ("  request -> first subscriber's signal", first),
        ("  request -> last subscriber's signal", last),
    ] {
        print(column(name) + millisecondsText(values.p50) + "  " + millisecondsText(values.p99))
    }
    print(
        column("  last subscriber over kbwatch's own line") + millisecondsText(last.p50 - own.p50) + "  "
            + millisecondsText(last.p99 - own.p99))
    print(
        column("  last subscriber over the first") + millisecondsText(last.p50 - first.p50) + "  "
            + millisecondsText(last.p99 - first.p99))
    if let before, let after {
        // Each move is two events (will and did).
        let events = Double(2 * (moves - missed))
        func perEvent(_ earlier: ProcessUsage?, _ later: ProcessUsage?) -> Double {
            guard let earlier, let later else { return .nan }
            return Double(later.since(earlier).cpuNanoseconds) / 1e6 / events
        }
        let service = perEvent(before, after)
        print(
            column("  service CPU per event")
                + String(format: "%.3f ms, %.4f ms per subscriber", service, service / Double(subscribers)))
        print(
            column("  bus daemon CPU per event (routing)")
                + String(
                    format: "%.3f ms, %.4f ms per subscriber", perEvent(daemonBefore, daemonAfter),
                    perEvent(daemonBefore, daemonAfter) / Double(subscribers)))
        print(
            column("  servicebare CPU per event (all N clients)")
                + String(format: "%.3f ms", perEvent(clientsBefore, clientsAfter)))
        print(
            column("  service resident memory") + "\(after.residentKiB) KiB = "
                + mebibytesText(kibibytes: after.residentKiB))
    }
    if subscribers == 100, !broadcast {
        print(
            column("  target: last over the first, p50") + "<= 2 ms"
                + (last.p50 - first.p50 <= 0.002 ? " (met)" : " (not met)"))
    }
}

do {
    guard try Programs.ready(["Xvfb", "xvkbd", "dbus-daemon", "dbus-send"]) else { exit(2) }
    print("servicebench: the session service's signals beside kbwatch's own line, xvkbd on Xvfb (ms)")
    for subscribers in [1, 10, 100] { try run(subscribers: subscribers) }
    try run(subscribers: 100, broadcast: true)
} catch {
    print("servicebench: \(error)")
    exit(1)
}
