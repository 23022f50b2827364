import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import TestSupport

// kwinbench: show and hide latency of the kbwatch process on headless KWin with maliit-keyboard,
// beside dbus-monitor (a bare C listener of the same session bus) in the same run: from the
// request (forceActivate, or `active` set to false, sent with dbus-send) to
// - dbus-monitor's line for KWin's last `visibleChanged` signal before kbwatch's line (KWin has
//   said that something changed; the signal carries no value),
// - kwinbare's line (the floor, Benchmarks/kwinbare, C): it hears the same signal, reads
//   `visible` with a blocking Get and prints it,
// - kbwatch's willShow / willHide line (`--format '%e'`): it does what kwinbare does, then the
//   tracker and its writer.
// On KWin 6 (`debian13`: the Debian 13 userland's KWin 6.3) kwinbare is left out (KWin 6 signals
// before `visible` changes, so a Get on the signal misses shows) and dbus-monitor also hears the
// package's KWin script reporting the keyboard's window (or its going) to kbwatch: kbwatch
// after that call is all that is kbwatch's (both hear the same call, so either may print first:
// a negative figure is kbwatch printing before dbus-monitor).
// Then kbwatch's idle ticks and context switches over 10 s with the keyboard shown, and its
// memory. Runs KWin as an unprivileged account, as the tests do (see HeadlessKWin).
//
// Usage: kwinbench [ROUNDS] [debian12|debian13] (default 20 on debian12); KWINBENCH_IDLE_SECONDS
// (default 10).

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20
let stack: Stack = CommandLine.arguments.dropFirst(2).first == "debian13" ? .debian13 : .debian12
let idleSeconds = Int(ProcessInfo.processInfo.environment["KWINBENCH_IDLE_SECONDS"] ?? "") ?? 10

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The first line at or after `index` satisfying `matches`, waiting up to 10 s.
func line(in lines: StampedLines, from index: Int, _ what: String, _ matches: (String) -> Bool) throws
    -> (index: Int, time: Double)
{
    var found: (Int, Double)?
    let seen = Wait.until(timeout: 10, interval: 0.001) {
        let all = lines.all
        guard all.count > index else { return false }
        for position in index..<all.count where matches(all[position].text) {
            found = (position, all[position].time)
            return true
        }
        return false
    }
    guard seen, let found else { throw BenchError("timed out waiting for \(what)") }
    return found
}

func main() throws {
    guard try Programs.ready(["dbus-send", "dbus-monitor"]),
        try Userland.ready(stack, ["kwin_wayland", "maliit-keyboard", "dbus-daemon"])
    else {
        exit(2)
    }
    let kwin = try HeadlessKWin(stack: stack)
    defer { kwin.stop() }
    let kbwatch = try kwin.watch(["--format", "%e"])
    defer { kbwatch.stop() }
    let monitor = try kwin.watchCommand([
        "dbus-monitor", "--address", kwin.busAddress,
        "type='signal',interface='org.kde.kwin.VirtualKeyboard',member='visibleChanged'",
        "type='method_call',interface='org.keyboardadapter.KWinCompanion1',member='Report'",
    ])
    defer { monitor.stop() }
    // kwinbare is built next to this benchmark; the session's user gets a copy it can reach.
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let bare = kwin.runtime.path + "/bin/kwinbare"
    try FileManager.default.copyItem(
        atPath: URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("kwinbare").path,
        toPath: bare)
    let listener = try kwin.watchCommand(stack == .debian12 ? [bare] : ["sleep", "3600"])
    defer { listener.stop() }
    if stack == .debian12 { _ = try line(in: listener.lines, from: 0, "kwinbare to subscribe") { $0 == "ready" } }
    Thread.sleep(forTimeInterval: 1)

    var bareFloor = (show: Latencies(), hide: Latencies())
    var floor = (show: Latencies(), hide: Latencies())
    var watcher = (show: Latencies(), hide: Latencies())
    var after = (show: Latencies(), hide: Latencies())
    var script = (show: Latencies(), hide: Latencies())
    var afterScript = (show: Latencies(), hide: Latencies())
    for _ in 0..<rounds {
        for showing in [true, false] {
            let kbwatchMark = kbwatch.lines.count
            let monitorMark = monitor.lines.count
            let bareMark = listener.lines.count
            let start = MonotonicClock.now()
            if showing { try kwin.forceActivate() } else { try kwin.deactivate() }
            let event = showing ? "willShow" : "willHide"
            let printed = try line(in: kbwatch.lines, from: kbwatchMark, event) { $0 == event }
            // KWin may signal more than once per change: the last signal before kbwatch's line.
            var heard: Double?
            for entry in monitor.lines.all.dropFirst(monitorMark)
            where entry.text.contains("member=visibleChanged") && entry.time <= printed.time {
                heard = entry.time
            }
            if stack == .debian13 {
                // kbwatch follows the script there, which may beat dbus-monitor's line for KWin's signal.
                heard = try? line(in: monitor.lines, from: monitorMark, "visibleChanged") {
                    $0.contains("member=visibleChanged")
                }.time
            }
            guard let heard else { throw BenchError("dbus-monitor saw no visibleChanged before kbwatch's \(event)") }
            if stack == .debian13 {
                // The script's first report of the window (or of its going).
                let kind = showing ? "\"kind\":\"panel\"" : "\"kind\":\"panelGone\""
                // Both hear the same call: either may print first.
                guard
                    let found = try? line(
                        in: monitor.lines, from: monitorMark, "the script's report",
                        {
                            $0.contains(kind)
                        })
                else {
                    let seen = monitor.lines.all.dropFirst(monitorMark).map { "\($0.time - start) \($0.text)" }
                    throw BenchError(
                        "dbus-monitor saw no script report for kbwatch's \(event) at \(printed.time - start): \(seen)")
                }
                let reported = monitor.lines.line(found.index)
                if showing {
                    script.show.append(reported.time - start)
                    afterScript.show.append(printed.time - reported.time)
                } else {
                    script.hide.append(reported.time - start)
                    afterScript.hide.append(printed.time - reported.time)
                }
            }
            let said =
                stack == .debian12
                ? try line(in: listener.lines, from: bareMark, "kwinbare's line") { $0 == "visible \(showing ? 1 : 0)" }
                : (index: 0, time: 0)
            try kwin.waitForVisible(showing)
            if showing {
                bareFloor.show.append(said.time - start)
                floor.show.append(heard - start)
                watcher.show.append(printed.time - start)
                after.show.append(printed.time - heard)
            } else {
                bareFloor.hide.append(said.time - start)
                floor.hide.append(heard - start)
                watcher.hide.append(printed.time - start)
                after.hide.append(printed.time - heard)
            }
            Thread.sleep(forTimeInterval: 0.3)
        }
    }
    print(
        "kwinbench: \(rounds) shows and \(rounds) hides of maliit-keyboard on headless KWin "
            + "(\(stack == .debian12 ? "5.27, Debian 12" : "6.3, Debian 13")) (ms, p50 / p90)")
    print("from the request (dbus-send) to            show                 hide")
    func row(_ name: String, _ show: Latencies, _ hide: Latencies) {
        let cells = [show, hide].map { "\(millisecondsText($0.p50)) / \(millisecondsText($0.p90))" }
        print(name.padding(toLength: 40, withPad: " ", startingAt: 0) + cells.joined(separator: "   "))
    }
    row("dbus-monitor hears visibleChanged", floor.show, floor.hide)
    if stack == .debian12 {
        row("kwinbare prints what Get says", bareFloor.show, bareFloor.hide)
    } else {
        row("dbus-monitor hears the script's report", script.show, script.hide)
    }
    row("kbwatch prints its will line", watcher.show, watcher.hide)
    row("  kbwatch after visibleChanged", after.show, after.hide)
    if stack == .debian12 {
        let ratios = [(watcher.show, bareFloor.show), (watcher.hide, bareFloor.hide)].map {
            String(format: "%.2f", $0.0.p50 / $0.1.p50)
        }
        print("kbwatch / kwinbare at p50: show \(ratios[0])x, hide \(ratios[1])x")
    } else {
        row("  kbwatch after the script's report", afterScript.show, afterScript.hide)
        let ratios = [(watcher.show, script.show), (watcher.hide, script.hide)].map {
            String(format: "%.2f", $0.0.p50 / $0.1.p50)
        }
        print("kbwatch / the script's report at p50: show \(ratios[0])x, hide \(ratios[1])x")
    }

    try kwin.forceActivate()
    try kwin.waitForVisible(true)
    Thread.sleep(forTimeInterval: 1)
    guard let before = ProcessUsage.sample(pid: kbwatch.pid) else { throw BenchError("kbwatch's usage") }
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    guard let later = ProcessUsage.sample(pid: kbwatch.pid) else { throw BenchError("kbwatch's usage") }
    print(
        "kbwatch idle \(idleSeconds) s with the keyboard shown: \(later.ticks - before.ticks) ticks, "
            + "\(later.switches - before.switches) context switches; resident \(later.residentKiB) KiB, "
            + "\(later.threads) threads")
}

do {
    try main()
} catch {
    print("kwinbench: \(error)")
    exit(1)
}
