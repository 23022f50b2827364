// x11bench: what the X11 backend costs, measured against a real keyboard on a private Xvfb,
// each figure next to a bare Xlib listener (BareXListener) in the same process and run.
//
// 1. Latency: a configure request (XMoveWindow from a third connection) on matchbox-keyboard's
//    window, to the KeyboardManager's willChangeFrame callback (delivery .immediate), next to the
//    bare listener's ConfigureNotify of the same request. p50, p99 and their ratio.
// 2. Storms of 50 000 configure requests on the keyboard window. First the backend alone: the
//    time until it has processed the last one, and the process's memory before and after (the
//    listener is stopped, so that its own event queue does not count). Then the backend and the
//    listener together: both times side by side.
// 3. Idle over 10 s afterwards: CPU ticks and context switches of the loop thread (kbd-loop),
//    of the listener's thread, and of the whole process.
// 4. Instructions per keyboard move of `kbwatch --json` and of x11bare (Benchmarks/x11bare), both
//    under callgrind watching the same moves of the keyboard window (when valgrind is installed):
//    the process kbwatch ships as, beside the C floor, in the same run as the figures above.
//
// Environment: X11BENCH_ITERATIONS (default 200), X11BENCH_STORM (50000), X11BENCH_IDLE_SECONDS (10),
// X11BENCH_COUNTED_MOVES (200).

import CX11
import Foundation
import Glibc
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import TestSupport
import X11Adapter

func fputsError(_ text: String) { _ = text.withCString { write(2, $0, strlen($0)) } }

func setting(_ name: String, _ fallback: Int) -> Int {
    Int(ProcessInfo.processInfo.environment[name] ?? "") ?? fallback
}

func column(_ text: String, _ width: Int = 48) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }

func resident() -> Int { ProcessUsage.sample(pid: getpid())?.residentKiB ?? 0 }

func run() throws {
    let iterations = setting("X11BENCH_ITERATIONS", 200)
    let stormSize = setting("X11BENCH_STORM", 50_000)
    let idleSeconds = setting("X11BENCH_IDLE_SECONDS", 10)
    let countedMoves = setting("X11BENCH_COUNTED_MOVES", 200)
    let keyboardProgram = "matchbox-keyboard"
    guard try Programs.ready(["Xvfb", keyboardProgram]) else { exit(2) }

    let session = try X11Session()
    defer { session.stop() }
    let rssStart = resident()
    let backend = TappedBackend(X11Backend(displayName: session.display, rules: .builtIn))
    let manager = KeyboardManager(backend: backend)
    let willChangeTimes = Mutex<[Double]>([])
    let shown = Mutex(false)
    let subscription = manager.onEvent(delivery: .immediate) { update in
        let received = MonotonicClock.now()
        if update.event == .willChangeFrame { willChangeTimes.withLock { $0.append(received) } }
        if update.event == .didShow { shown.withLock { $0 = true } }
    }
    try manager.start()
    defer {
        subscription.cancel()
        manager.stop()
    }
    try session.start(keyboardProgram)
    try Wait.require("\(keyboardProgram) to show", timeout: 15) { shown.withLock { $0 } }
    guard let keyboardID = backend.tapped.withLock({ $0.keyboard?.id }),
        let window = Window(keyboardID.dropFirst("x11:0x".count), radix: 16)
    else {
        throw TestFailure("no keyboard window")
    }
    let driver = try XTestClient.connect(session.display)
    driver.sync()

    // 1. Latency.
    let latencyListener = try BareXListener(display: session.display, window: window)
    latencyListener.start()
    Thread.sleep(forTimeInterval: 0.2)
    var backendLatency = Latencies()
    var floorLatency = Latencies()
    for index in 0..<iterations {
        let before = (willChangeTimes.withLock { $0.count }, latencyListener.count)
        let sent = MonotonicClock.now()
        driver.configure(window, x: 100 + (index % 2) * 300, y: 200 + (index % 3) * 50)
        let seen =
            latencyListener.wait(beyond: before.1, timeout: 2)
            && Wait.until(timeout: 2, interval: 0.0005) { willChangeTimes.withLock { $0.count } > before.0 }
        if seen, let notify = latencyListener.notify(before.1) {
            backendLatency.append(willChangeTimes.withLock { $0[before.0] } - sent)
            floorLatency.append(notify.time - sent)
        }
        // Let the change settle (the manager's interval is 50 ms) so that the next move is a new change.
        Thread.sleep(forTimeInterval: 0.07)
    }
    latencyListener.stop()

    // 2. Storms: the backend alone (memory), then beside the listener (times).
    Thread.sleep(forTimeInterval: 0.5)
    let rssBeforeStorm = resident()
    let alone = Storm.run(driver: driver, window: window, size: stormSize, finalX: 77, backend: backend, listener: nil)
    let rssAfterStorm = resident()
    let stormListener = try BareXListener(display: session.display, window: window, historyLimit: 0)
    stormListener.start()
    Thread.sleep(forTimeInterval: 0.2)
    let together = Storm.run(
        driver: driver, window: window, size: stormSize, finalX: 88, backend: backend, listener: stormListener)
    let rssAfterBoth = resident()

    // 3. Idle, after the storms: nothing may keep running.
    Thread.sleep(forTimeInterval: 0.5)
    let before = Idle.sample()
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    let idle = Idle.sample().since(before)
    stormListener.stop()

    // 4. Instructions per move of the kbwatch process and of x11bare, after the idle sample.
    let instructions = try InstructionsPerMove.measure(
        display: session.display, window: UInt(window), environment: session.environment, count: countedMoves)

    print(
        "x11bench: \(keyboardProgram) on Xvfb \(session.display) (\(session.width)x\(session.height)), no window manager"
    )
    print("")
    print(column("configure request -> event (n=\(backendLatency.count) of \(iterations))") + "     p50          p99")
    print(
        column("  manager callback (willChangeFrame)") + millisecondsText(backendLatency.p50) + "  "
            + millisecondsText(backendLatency.p99))
    print(
        column("  bare Xlib listener (floor)") + millisecondsText(floorLatency.p50) + "  "
            + millisecondsText(floorLatency.p99))
    print(
        column("  ratio")
            + String(
                format: "%10.2fx  %10.2fx", backendLatency.p50 / floorLatency.p50, backendLatency.p99 / floorLatency.p99
            ))
    print("")
    print("storm: \(stormSize) configure requests on the keyboard window (one connection, flushed every 1000)")
    print(column("  backend alone -> manager") + alone.backendDescription(stormSize))
    print(column("  backend beside the listener") + together.backendDescription(stormSize))
    print(column("  bare Xlib listener (floor)") + together.listenerDescription(stormSize))
    print(
        column("  backend vs floor (same storm)")
            + String(format: "%.2fx the listener's time", together.backendSeconds / together.listenerSeconds))
    print("memory (VmRSS of the process; target: flat within 1 MB over the storm)")
    print(column("  start, before the keyboard") + mebibytesText(kibibytes: rssStart))
    print(column("  before the storm (backend alone)") + mebibytesText(kibibytes: rssBeforeStorm))
    print(
        column("  after the storm (backend alone)") + mebibytesText(kibibytes: rssAfterStorm)
            + String(format: "  (%+.2f MiB)", Double(rssAfterStorm - rssBeforeStorm) / 1024))
    print(column("  after the storm with the listener") + mebibytesText(kibibytes: rssAfterBoth))
    print("")
    print("idle \(idleSeconds) s after the storms")
    print(column("  loop thread (kbd-loop)") + idle.loop.cpuDescription)
    print(column("  bare listener's thread (floor)") + idle.listener.cpuDescription)
    print(column("  whole process (main thread: one sleep)") + idle.process.cpuDescription)
    print("")
    instructions.rows(width: 48).forEach { print($0) }
}

do {
    try run()
} catch {
    fputsError("x11bench: \(error)\n")
    exit(1)
}
