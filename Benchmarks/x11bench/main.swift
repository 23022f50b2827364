// x11bench: what the X11 backend costs, measured against a real keyboard on a private Xvfb.
//
// 1. Latency: a configure request (XMoveWindow from a third connection) on matchbox-keyboard's
//    window, to the KeyboardManager's willChangeFrame callback, next to a bare Xlib listener on
//    the same ConfigureNotify (the floor). p50, p99 and their ratio.
// 2. A storm of 50 000 configure requests on the keyboard window: how fast the backend (and the
//    manager behind it) gets through the resulting ConfigureNotify, next to the bare listener, and
//    the memory before and after.
// 3. Idle CPU of the whole process over 10 s afterwards, with the backend running and nothing
//    happening.

import CX11
import Foundation
import Glibc
import KeyboardAdapterCore
import Synchronization
import TestSupport
import X11Adapter

/// The X11 backend with a tap on what it delivers (how many observations, the last frame), run by
/// a real `KeyboardManager`: latencies are measured at the manager's callback.
final class TappedBackend: KeyboardBackend {
    struct Tapped {
        var observationCount = 0
        var lastFrame: Rect?
        var keyboard: KeyboardIdentity?
    }
    let wrapped: X11Backend
    let tapped = Mutex(Tapped())

    init(_ wrapped: X11Backend) { self.wrapped = wrapped }

    var name: String { wrapped.name }
    var capabilities: BackendCapabilities { wrapped.capabilities }
    func availability() -> BackendAvailability { wrapped.availability() }
    func start(on loop: KeyboardRunLoop, sink: any ObservationSink) throws {
        try wrapped.start(on: loop, sink: Tap(inner: sink, backend: self))
    }
    func stop() { wrapped.stop() }

    struct Tap: ObservationSink {
        let inner: any ObservationSink
        let backend: TappedBackend
        func deliver(_ observation: KeyboardObservation) {
            backend.tapped.withLock { tapped in
                tapped.observationCount += 1
                tapped.lastFrame = observation.frame
                tapped.keyboard = observation.keyboard
            }
            inner.deliver(observation)
        }
        func finish(failure: BackendFailure?) {
            if let failure { fputsError("backend failed: \(failure)\n") }
            inner.finish(failure: failure)
        }
    }
}

/// The floor: a plain Xlib client that selects SubstructureNotify on the root and stamps every
/// ConfigureNotify of one window when it reads it.
final class BareListener: @unchecked Sendable {
    let client: XTestClient
    let window: Window
    let times = Mutex<[Double]>([])
    /// The position and receive time of the latest ConfigureNotify.
    let last = Mutex<(x: Int, y: Int, time: Double)?>(nil)
    let running = Atomic<Bool>(true)
    let done = DispatchSemaphore(value: 0)

    init(display: String, window: Window) throws {
        client = try XTestClient.connect(display)
        self.window = window
        client.selectRootEvents(SubstructureNotifyMask)
    }

    func start() {
        Thread.detachNewThread { [self] in
            var fd = pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0)
            while running.load(ordering: .relaxed) {
                while client.pending() > 0 {
                    let event = client.nextEvent()
                    if event.type == ConfigureNotify, event.xconfigure.window == window {
                        let now = MonotonicClock.now()
                        times.withLock { $0.append(now) }
                        let position = (Int(event.xconfigure.x), Int(event.xconfigure.y), now)
                        last.withLock { $0 = position }
                    }
                }
                // A timeout only so that the benchmark can end this thread; not part of what is measured.
                _ = poll(&fd, 1, 100)
            }
            done.signal()
        }
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        done.wait()
    }
}

func fputsError(_ text: String) { _ = text.withCString { write(2, $0, strlen($0)) } }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

func residentBytes() -> Int {
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

func contextSwitches() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_nvcsw + usage.ru_nivcsw
}

func ms(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }

func run() throws {
    let iterations = Int(ProcessInfo.processInfo.environment["X11BENCH_ITERATIONS"] ?? "") ?? 200
    let stormSize = 50_000
    let keyboardProgram = "matchbox-keyboard"
    guard Programs.find("Xvfb") != nil, Programs.find(keyboardProgram) != nil else {
        fputsError("x11bench needs Xvfb and \(keyboardProgram)\n")
        exit(2)
    }

    let session = try X11Session()
    defer { session.stop() }
    let rssStart = residentBytes()
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

    // 1. Latency.
    let listener = try BareListener(display: session.display, window: window)
    listener.start()
    let driver = try XTestClient.connect(session.display)
    driver.sync()
    Thread.sleep(forTimeInterval: 0.2)
    var backendLatency: [Double] = []
    var floorLatency: [Double] = []
    for index in 0..<iterations {
        let before = (willChangeTimes.withLock { $0.count }, listener.times.withLock { $0.count })
        let sent = MonotonicClock.now()
        driver.configure(window, x: 100 + (index % 2) * 300, y: 200 + (index % 3) * 50)
        let seen = Wait.until(timeout: 2, interval: 0.0005) {
            willChangeTimes.withLock { $0.count } > before.0
                && listener.times.withLock { $0.count } > before.1
        }
        if seen {
            backendLatency.append(willChangeTimes.withLock { $0[before.0] } - sent)
            floorLatency.append(listener.times.withLock { $0[before.1] } - sent)
        }
        // Let the change settle (the manager's interval is 50 ms) so that the next move is a new change.
        Thread.sleep(forTimeInterval: 0.07)
    }
    // 2. Storm.
    let rssBeforeStorm = residentBytes()
    let observationsBefore = backend.tapped.withLock { $0.observationCount }
    let final = Rect(x: 77, y: 333, width: 0, height: 0)
    let stormStart = MonotonicClock.now()
    for index in 0..<stormSize {
        let last = index == stormSize - 1
        let x = last ? final.x : 10 + index % 500
        let y = last ? final.y : 10 + index % 400
        XMoveWindow(driver.handle, window, Int32(x), Int32(y))
        if index % 1000 == 999 { XFlush(driver.handle) }
    }
    XFlush(driver.handle)
    let drained = Wait.until(timeout: 120, interval: 0.001) {
        backend.tapped.withLock { $0.lastFrame.map { $0.x == final.x && $0.y == final.y } ?? false }
    }
    let stormSeconds = MonotonicClock.now() - stormStart
    let floorDrained = Wait.until(timeout: 60, interval: 0.001) {
        listener.last.withLock { $0.map { $0.x == final.x && $0.y == final.y } ?? false }
    }
    let floorSeconds = (listener.last.withLock { $0?.time } ?? .nan) - stormStart
    listener.stop()
    let stormObservations = backend.tapped.withLock { $0.observationCount } - observationsBefore
    let rssAfterStorm = residentBytes()

    // 3. Idle CPU, after the storm: nothing may keep running.
    Thread.sleep(forTimeInterval: 0.5)
    let idleSeconds = 10.0
    let cpuBefore = cpuSeconds()
    let switchesBefore = contextSwitches()
    Thread.sleep(forTimeInterval: idleSeconds)
    let idleCPU = cpuSeconds() - cpuBefore
    let idleSwitches = contextSwitches() - switchesBefore

    let p50 = percentile(backendLatency, 50)
    let p99 = percentile(backendLatency, 99)
    let f50 = percentile(floorLatency, 50)
    let f99 = percentile(floorLatency, 99)
    var lines: [String] = []
    lines.append(
        "x11bench: \(keyboardProgram) on Xvfb \(session.display) (\(session.width)x\(session.height)), no window manager"
    )
    lines.append("")
    lines.append("latency, configure request -> event (n=\(backendLatency.count) of \(iterations))")
    lines.append("  listener                        p50          p99")
    lines.append(
        "  manager callback (willChange)   \(ms(p50).padding(toLength: 12, withPad: " ", startingAt: 0)) \(ms(p99))")
    lines.append(
        "  bare Xlib listener (floor)      \(ms(f50).padding(toLength: 12, withPad: " ", startingAt: 0)) \(ms(f99))")
    lines.append(
        "  ratio                           "
            + String(format: "%.2fx", p50 / f50).padding(toLength: 13, withPad: " ", startingAt: 0)
            + String(format: "%.2fx", p99 / f99))
    lines.append("")
    lines.append(
        String(
            format: "idle: %.1f ms CPU over %.0f s (%.4f%%), %d context switches (whole process)",
            idleCPU * 1000, idleSeconds, idleCPU / idleSeconds * 100, idleSwitches))
    lines.append("")
    lines.append("storm: \(stormSize) configure requests on the keyboard window (one connection, flushed every 1000)")
    lines.append(
        String(
            format: "  backend -> manager %@ in %.3f s = %.0f ConfigureNotify/s (%d observations)",
            drained ? "all processed" : "NOT all processed", stormSeconds,
            Double(stormSize) / stormSeconds, stormObservations))
    lines.append(
        String(
            format: "  bare Xlib listener  %@ in %.3f s = %.0f ConfigureNotify/s",
            floorDrained ? "all received" : "NOT all received", floorSeconds, Double(stormSize) / floorSeconds))
    lines.append(
        String(
            format: "memory (RSS): start %.1f MiB, before storm %.1f MiB, after storm %.1f MiB",
            Double(rssStart) / 1_048_576, Double(rssBeforeStorm) / 1_048_576, Double(rssAfterStorm) / 1_048_576))
    print(lines.joined(separator: "\n"))
}

do {
    try run()
} catch {
    fputsError("x11bench: \(error)\n")
    exit(1)
}
