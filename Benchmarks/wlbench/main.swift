import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import TestSupport
import WaylandAdapter

// wlbench: show and hide latency on headless sway with wvkbd, from wvkbd's signal to
// - a bare libwayland layer-shell probe's configure (the floor, BareProbe.swift),
// - the in-process KeyboardManager's willShow / willHide callback (delivery .immediate),
// - the kbwatch process's line on its stdout (`--backend wayland --format '%e'`), read on a
//   dedicated thread,
// - wlbare (Benchmarks/wlbare), a bare C client that makes the probe and, on a show, the popup
//   query that finds the keyboard's edge, as the backend must: its line on its stdout, read the
//   same way (the floor of a show),
// all for the same signals in one run; then kbwatch's memory, idle ticks and context switches
// over 10 s with wvkbd shown (kbwatch's threads, the manager's loop thread, the probe's), and the
// wall time of `kbwatch --state` beside `wlbare --once`.
// Then the rounds are repeated with kbwatch alone beside the probe, and with the manager alone:
// on a show each backend makes a popup round trip, which may queue behind the other's.
// Runs headless sway as the current user, or, as root, as an unprivileged account (see TestUser).
//
// Then kbwatch's memory over 1 000 more events (WLBENCH_MEMORY_ROUNDS shows and hides, 250: four
// events each).
//
// Usage: wlbench [ROUNDS] (default 30); WLBENCH_IDLE_SECONDS (default 10), WLBENCH_STATE_RUNS (30),
// WLBENCH_MEMORY_ROUNDS (250).

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 30
let idleSeconds = Int(ProcessInfo.processInfo.environment["WLBENCH_IDLE_SECONDS"] ?? "") ?? 10
let stateRuns = Int(ProcessInfo.processInfo.environment["WLBENCH_STATE_RUNS"] ?? "") ?? 30
let memoryRounds = Int(ProcessInfo.processInfo.environment["WLBENCH_MEMORY_ROUNDS"] ?? "") ?? 250

func wait(_ what: String, timeout: Double = 5, _ condition: () -> Bool) throws {
    if !Wait.until(timeout: timeout, interval: 0.001, condition) { throw BenchError("timed out waiting for \(what)") }
}

func column(_ text: String, _ width: Int = 44) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

/// Resident memory for the report: KiB, MiB and MB (10^6 bytes).
func memoryText(_ usage: ProcessUsage?) -> String {
    guard let usage else { return "gone" }
    return "\(usage.residentKiB) KiB = " + mebibytesText(kibibytes: usage.residentKiB)
        + String(format: " = %.2f MB", Double(usage.residentKiB) * 1.024 / 1000)
}

func main() throws {
    guard try Programs.ready(["sway", "wvkbd-mobintl", "setpriv"]) else { exit(2) }
    let sway = try HeadlessSway()
    defer { sway.stop() }
    let backend = WaylandBackend(display: sway.socket)
    let manager = KeyboardManager(backend: backend)
    // Each will event with the monotonic time at which the manager's callback ran.
    let wills = WillLog()
    let subscription = manager.onEvent(delivery: .immediate) { update in
        let now = MonotonicClock.now()
        if update.event.isWill { wills.entries.withLock { $0.append((update.event, now)) } }
    }
    try manager.start()
    defer {
        subscription.cancel()
        manager.stop()
    }
    let full = Rect(x: 0, y: 0, width: 1280, height: 800)
    try wait("the probe's first usable area") { backend.outputs.first?.usableArea == full }
    let bareProbe = try BareProbe(socket: sway.socket)
    bareProbe.run()
    let wlbarePath = URL(fileURLWithPath: Kbwatch.path).deletingLastPathComponent().appendingPathComponent("wlbare")
        .path
    let wlbare = try WatchedProcess(wlbarePath, [], environment: sway.clientEnvironment)
    defer { wlbare.stop() }
    let kbwatch = try Kbwatch.watch(
        ["--backend", "wayland", "--format", "%e"], environment: sway.clientEnvironment)
    defer { kbwatch.stop() }
    try wait("kbwatch's loop thread", timeout: 10) {
        (ProcessUsage.sample(pid: kbwatch.pid, thread: "kbd-loop")?.threads ?? 0) > 0
    }
    // Its first roundtrips (outputs, the probe's first configure) are done well within this.
    Thread.sleep(forTimeInterval: 1)

    let keyboard = try ChildProcess(
        "wvkbd-mobintl", ["--hidden"], environment: sway.clientEnvironment,
        directory: sway.runtime.path)
    defer { keyboard.stop() }
    try wait("wvkbd to handle SIGUSR1 and SIGUSR2") { keyboard.handles(SIGUSR1) && keyboard.handles(SIGUSR2) }
    let kbwatchStarted = ProcessUsage.sample(pid: kbwatch.pid)

    let together = try Rounds(keyboard: keyboard, probe: bareProbe, kbwatch: kbwatch, wills: wills, floor: wlbare)
        .run(rounds)
    let kbwatchAfterRounds = ProcessUsage.sample(pid: kbwatch.pid)

    // Idle with wvkbd shown: nothing changes on screen; every loop should sleep in poll throughout.
    keyboard.signal(SIGUSR2)
    _ = kbwatch.lines.first(from: kbwatch.lines.count, timeout: 5) { $0 == "didShow" }
    Thread.sleep(forTimeInterval: 0.5)
    let before = IdleUsage.sample(kbwatch: kbwatch.pid)
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    let idle = IdleUsage.sample(kbwatch: kbwatch.pid).since(before)

    // Then each alone beside the probe, so that neither's popup round trip on a show queues at
    // the compositor behind the other's: kbwatch (the manager stopped), then the manager (kbwatch
    // ended).
    manager.stop()
    keyboard.signal(SIGUSR1)
    _ = kbwatch.lines.first(from: kbwatch.lines.count, timeout: 5) { $0 == "didHide" }
    Thread.sleep(forTimeInterval: 0.5)
    let kbwatchAlone = try Rounds(keyboard: keyboard, probe: bareProbe, kbwatch: kbwatch, wills: nil, floor: wlbare)
        .run(rounds)
    let kbwatchAfterAll = ProcessUsage.sample(pid: kbwatch.pid)
    // Memory over 1 000 more events (each round: willShow, didShow, willHide, didHide).
    _ = try Rounds(keyboard: keyboard, probe: bareProbe, kbwatch: kbwatch, wills: nil, floor: wlbare)
        .run(memoryRounds)
    let kbwatchAfterMemory = ProcessUsage.sample(pid: kbwatch.pid)
    kbwatch.stop()
    try manager.start()
    try wait("the restarted manager's probe") { backend.outputs.first?.usableArea == full }
    Thread.sleep(forTimeInterval: 0.5)
    let managerAlone = try Rounds(keyboard: keyboard, probe: bareProbe, kbwatch: nil, wills: wills, floor: wlbare)
        .run(rounds)

    // kbwatch --state with wvkbd shown, beside wlbare --once (connect, probe, popup, exit).
    manager.stop()
    keyboard.signal(SIGUSR2)
    _ = wlbare.lines.first(from: wlbare.lines.count, timeout: 5) { $0.hasPrefix("show ") }
    Thread.sleep(forTimeInterval: 0.5)
    var stateEnvironment = ProcessInfo.processInfo.environment
    for (key, value) in sway.clientEnvironment {
        if let value { stateEnvironment[key] = value } else { stateEnvironment.removeValue(forKey: key) }
    }
    let state = try TimedRun.alternating(
        (Kbwatch.path, ["--state", "--backend", "wayland"]), floor: (wlbarePath, ["--once"]),
        environment: stateEnvironment, runs: stateRuns)

    print("wlbench: headless sway 1280x800, wvkbd-mobintl, \(rounds) shows and \(rounds) hides")
    print("kbwatch: \(Kbwatch.path)")
    print("")
    together.print("the manager, kbwatch and the probe, same signals")
    print("")
    kbwatchAlone.print("then the manager stopped: kbwatch and the probe, same signals")
    print("")
    managerAlone.print("then kbwatch ended, the manager restarted: the manager and the probe, same signals")
    print("  (targets for kbwatch: show p50 <= 1.20x wlbare, hide p50 <= 1.10x the probe)")
    print("")
    print("resident memory of kbwatch on Wayland, VmRSS (target: <= 10 MB, flat: within 0.2 MB of its start)")
    print(column("  after start-up") + memoryText(kbwatchStarted))
    print(column("  after \(rounds) shows and hides") + memoryText(kbwatchAfterRounds))
    print(column("  after \(2 * rounds) shows and hides") + memoryText(kbwatchAfterAll))
    print(
        column("  after \(4 * memoryRounds) more events") + memoryText(kbwatchAfterMemory)
            + "   (flat: within 0.2 MB of the line above)")
    print("")
    print(column("wall time of \(stateRuns) runs, wvkbd shown") + "  median          p90")
    print(
        column("  kbwatch --state --backend wayland") + millisecondsText(state.program.p50) + "  "
            + millisecondsText(state.program.p90) + "   (target: median <= 10 ms; exit \(state.statuses.sorted()))")
    print(
        column("  wlbare --once (floor)") + millisecondsText(state.floor.p50) + "  "
            + millisecondsText(state.floor.p90))
    print("")
    print("idle \(idleSeconds) s with wvkbd shown (target for kbwatch: 0 ticks, 0 switches)")
    print(column("  kbwatch (all threads)") + idle.kbwatch.cpuDescription)
    print(column("  KeyboardManager loop thread (kbd-loop)") + idle.loop.cpuDescription)
    print(column("  bare probe's thread (floor)") + idle.probe.cpuDescription)
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("wlbench: \(error)\n".utf8))
    exit(1)
}
