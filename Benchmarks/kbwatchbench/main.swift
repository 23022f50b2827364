// kbwatchbench: what the kbwatch process costs while it watches a real keyboard (xvkbd) on a
// private Xvfb, each figure next to its floor in the same run:
//
// 1. Resident memory after start-up, next to xev (a C Xlib process watching the same root).
// 2. Idle: CPU ticks and context switches over 10 s with the keyboard shown, summed over all of
//    kbwatch's threads (and xev's): a process blocked in poll() uses none.
// 3. Configure requests on the keyboard window (XMoveWindow from a third connection), one at a
//    time: the time to kbwatch's willChangeFrame line on its stdout, read on a dedicated thread,
//    and to a bare Xlib listener's ConfigureNotify for the same request; then the memory again.
//    kbwatch's loop thread asks the kernel for a 0.1 ms time slice: the moves are measured as
//    shipped, again with that thread set back to the kernel's default slice (what kernels before
//    Linux 6.12 give it), and again with the listener's thread asking for the same short slice.
//    Then, with kbwatch ended, the same for xev's line (line-buffered by stdbuf): what a
//    process and a pipe cost at the least; and for x11bare's, a C reader that selects what kbwatch
//    selects (so the server writes to it first, as to kbwatch) on the kernel's default slice.
// 4. CPU per keyboard move: `kbwatch --json` and x11bare (a C Xlib client that selects the same
//    events and writes a JSON line of the same size per event, Benchmarks/x11bare) watching the
//    same moves at once; user and system time per move of each, and kbwatch's resident memory
//    before and after the moves.
// 5. `kbwatch --state --backend x11`: wall time of repeated runs, next to `xwininfo -root -children`.
// 6. Instructions per keyboard move of `kbwatch --json` and of x11bare, both under callgrind
//    watching the same moves (when valgrind is installed).
//
// Environment: KBWATCHBENCH_MOVES (default 500), KBWATCHBENCH_CPU_MOVES (1000),
// KBWATCHBENCH_STATE_RUNS (30), KBWATCHBENCH_IDLE_SECONDS (10), KBWATCHBENCH_COUNTED_MOVES (200).

import Foundation
import KeyboardAdapterCore
import TestSupport

func setting(_ name: String, _ fallback: Int) -> Int {
    Int(ProcessInfo.processInfo.environment[name] ?? "") ?? fallback
}

func column(_ text: String, _ width: Int = 46) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

/// A thread's time slice as the kernel reports it.
func sliceText(_ nanoseconds: Int64?) -> String {
    guard let nanoseconds else { return "unknown" }
    return String(format: "%.1f ms", Double(nanoseconds) / 1_000_000)
}

func memory(_ usage: ProcessUsage?) -> String {
    guard let usage else { return "gone" }
    return "\(usage.residentKiB) KiB = " + mebibytesText(kibibytes: usage.residentKiB)
        + String(format: " = %.2f MB", Double(usage.residentKiB) * 1.024 / 1000)
}

func main() throws {
    let moves = setting("KBWATCHBENCH_MOVES", 500)
    let cpuMoves = setting("KBWATCHBENCH_CPU_MOVES", 1000)
    let stateRuns = setting("KBWATCHBENCH_STATE_RUNS", 30)
    let idleSeconds = setting("KBWATCHBENCH_IDLE_SECONDS", 10)
    let countedMoves = setting("KBWATCHBENCH_COUNTED_MOVES", 200)
    guard try Programs.ready(["Xvfb", "xvkbd", "xev", "stdbuf", "xwininfo"]) else { exit(2) }

    let session = try X11Session()
    defer { session.stop() }
    try session.start("xvkbd", ["-geometry", "640x200+320+600"])
    let kbwatch = try Kbwatch.watch(["--backend", "x11", "--format", "%e %i"], environment: session.environment)
    defer { kbwatch.stop() }
    guard let shown = kbwatch.lines.first(from: 0, timeout: 20, where: { $0.hasPrefix("didShow") }),
        let window = UInt(shown.text.split(separator: " ").last?.dropFirst("x11:0x".count) ?? "", radix: 16)
    else {
        throw TestFailure("kbwatch did not report xvkbd shown: \(kbwatch.lines.all.map(\.text)) \(kbwatch.errors)")
    }
    let xev = try WatchedProcess(
        "stdbuf", ["-oL", "xev", "-root", "-event", "substructure"], environment: session.environment)
    Thread.sleep(forTimeInterval: 1)

    // 1 and 2: memory after start-up, then idle.
    let kbwatchStarted = ProcessUsage.sample(pid: kbwatch.pid)
    let xevStarted = ProcessUsage.sample(pid: xev.pid)
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    let kbwatchIdle = ProcessUsage.sample(pid: kbwatch.pid).flatMap { kbwatchStarted.map($0.since) }
    let xevIdle = ProcessUsage.sample(pid: xev.pid).flatMap { xevStarted.map($0.since) }
    xev.stop()

    // 3: moves with kbwatch as it ships (its loop thread asks for a 0.1 ms slice); then with that
    // thread set back to the kernel's default slice from outside (what kernels before 6.12 give
    // it); then as shipped against a listener whose thread asks for the same slice; then (kbwatch
    // ended, so that only one process is woken) with xev.
    let loopThread = LoopThread.of(pid: kbwatch.pid)
    let shippedSlice = loopThread?.slice
    let listener = try BareXListener(display: session.display, window: window)
    listener.start()
    let latency = try MoveLatency.measure(
        display: session.display, window: window, watcher: kbwatch, prefix: "willChangeFrame", listener: listener,
        count: moves)
    let kbwatchMoved = ProcessUsage.sample(pid: kbwatch.pid)
    loopThread?.setSlice(0)
    let defaultSlice = loopThread?.slice
    let defaultLatency = try MoveLatency.measure(
        display: session.display, window: window, watcher: kbwatch, prefix: "willChangeFrame", listener: listener,
        count: min(moves, 200))
    listener.stop()
    loopThread?.setSlice(UInt64(shippedSlice ?? 0))
    let shortListener = try BareXListener(display: session.display, window: window)
    shortListener.start(slice: UInt64(shippedSlice ?? 0))
    let evenLatency = try MoveLatency.measure(
        display: session.display, window: window, watcher: kbwatch, prefix: "willChangeFrame",
        listener: shortListener, count: min(moves, 200))
    shortListener.stop()
    kbwatch.stop()
    let xevListener = try BareXListener(display: session.display, window: window)
    xevListener.start()
    defer { xevListener.stop() }
    let xevMoving = try WatchedProcess(
        "stdbuf", ["-oL", "xev", "-root", "-event", "substructure"], environment: session.environment)
    Thread.sleep(forTimeInterval: 1)
    let xevLatency = try MoveLatency.measure(
        display: session.display, window: window, watcher: xevMoving, prefix: "ConfigureNotify", listener: xevListener,
        count: min(moves, 200))
    xevMoving.stop()
    // x11bare selects what kbwatch selects (the keyboard window's structure too, so the server
    // writes to it before it writes the root's copy to the listener) and asks for no short slice:
    // the floor of a reader in kbwatch's place in the server's order, on the kernel's default slice.
    let bareMoving = try WatchedProcess(CPUPerEvent.x11bare, [String(window), "50"], environment: session.environment)
    guard bareMoving.lines.first(from: 0, timeout: 20, where: { $0 == "ready" }) != nil else {
        throw TestFailure("x11bare did not start: \(bareMoving.errors)")
    }
    Thread.sleep(forTimeInterval: 1)
    let bareLatency = try MoveLatency.measure(
        display: session.display, window: window, watcher: bareMoving,
        prefix: #"{"schema":1,"event":"willChangeFrame""#,
        listener: xevListener, count: min(moves, 200))
    bareMoving.stop()
    xevListener.stop()

    // 4: CPU per move, kbwatch --json beside its C floor.
    let cpu = try CPUPerEvent.measure(
        display: session.display, window: window, environment: session.environment, count: cpuMoves)

    // 6 (before 5, with nothing else running): instructions per move.
    let instructions = try InstructionsPerMove.measure(
        display: session.display, window: window, environment: session.environment, count: countedMoves)

    // 5: --state, alternating with the floor.
    var environment = ProcessInfo.processInfo.environment
    for (key, value) in session.environment { environment[key] = value }
    let (state, floor, statuses) = try TimedRun.alternating(
        (Kbwatch.path, ["--state", "--backend", "x11"]), floor: (Programs.find("xwininfo")!, ["-root", "-children"]),
        environment: environment, runs: stateRuns)

    print(
        "kbwatchbench: kbwatch watching xvkbd on Xvfb \(session.display) (\(session.width)x\(session.height)), "
            + "no window manager, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    print("kbwatch: \(Kbwatch.path)")
    print("")
    print(column("configure request -> event (n=\(latency.process.count) of \(moves))") + "     p50          p99")
    latency.rows("kbwatch stdout line (willChangeFrame)").forEach { print($0) }
    print(column("  target for kbwatch as shipped") + "     <= 1.00x")
    print("  (kbwatch's loop thread slice: \(sliceText(shippedSlice)); the listener's: the kernel's default)")
    print(
        "then kbwatch's loop thread set back to the kernel's default slice, \(sliceText(defaultSlice)) "
            + "(n=\(defaultLatency.process.count))")
    defaultLatency.rows("kbwatch stdout line, default slice").forEach { print($0) }
    print(column("  targets with the default slice") + "     <= 1.30x  <= +0.300 ms")
    print("then kbwatch as shipped, the listener's thread asking for the same slice (n=\(evenLatency.process.count))")
    evenLatency.rows("kbwatch stdout line").forEach { print($0) }
    print("then, kbwatch ended (n=\(xevLatency.process.count))")
    xevLatency.rows("xev stdout line (C Xlib process, stdbuf -oL)").forEach { print($0) }
    print(
        "then x11bare, which selects what kbwatch selects, on the kernel's default slice (n=\(bareLatency.process.count))"
    )
    bareLatency.rows("x11bare stdout line (C Xlib process)").forEach { print($0) }
    print("")
    print("idle \(idleSeconds) s with the keyboard shown (all threads; target for kbwatch: 0 ticks, 0 switches)")
    print(column("  kbwatch") + (kbwatchIdle?.cpuDescription ?? "gone"))
    print(column("  xev -root (C Xlib process, floor)") + (xevIdle?.cpuDescription ?? "gone"))
    print("")
    cpu.rows().forEach { print($0) }
    print("")
    instructions.rows().forEach { print($0) }
    print("")
    print(
        "resident memory, VmRSS (target for kbwatch: <= 10 MB; flat: within 0.2 MB over the moves, "
            + "once its first \(CPUPerEvent.warmUpMoves) have mapped their code)")
    print(column("  kbwatch --format after start-up") + memory(kbwatchStarted))
    print(column("  kbwatch --format after \(moves) moves") + memory(kbwatchMoved))
    print(column("  kbwatch --json after start-up") + memory(cpu.residentAtStart))
    print(column("  kbwatch --json after \(CPUPerEvent.warmUpMoves) moves") + memory(cpu.residentBefore))
    print(column("  kbwatch --json after \(cpu.moves) more moves") + memory(cpu.residentAfter))
    print(column("  xev -root (floor)") + memory(xevStarted))
    print("")
    print(column("wall time of \(stateRuns) runs, xvkbd shown") + "  median          p90")
    print(
        column("  kbwatch --state --backend x11") + millisecondsText(state.p50) + "  " + millisecondsText(state.p90)
            + "   (target: median <= 10 ms; exit \(statuses.sorted()))")
    print(
        column("  xwininfo -root -children (floor)") + millisecondsText(floor.p50) + "  " + millisecondsText(floor.p90))
    let missed = latency.missed + defaultLatency.missed + evenLatency.missed + xevLatency.missed + bareLatency.missed
    if missed > 0 {
        print("\nmissed: \(missed) moves had no line or no ConfigureNotify within 5 s")
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("kbwatchbench: \(error)\n".utf8))
    exit(1)
}
