import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport
import WaylandAdapter

// Show and hide latency of the wayland backend, from wvkbd's signal to the KeyboardManager's willShow /
// willHide callback, next to a bare libwayland probe's configure in the same run; then idle CPU.
// Runs headless sway as the current user, or, as root, as an unprivileged account (see TestUser).

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 30
let idleSeconds = 10.0

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[max(0, min(sorted.count - 1, rank))]
}

func ms(_ seconds: Double) -> String { String(format: "%7.2f ms", seconds * 1000) }

/// CPU time (ns) and context switches of the thread named `name`, from /proc.
func threadUsage(named name: String) -> (cpu: UInt64, switches: UInt64)? {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    for task in tasks {
        let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        guard name.hasPrefix(comm.trimmingCharacters(in: .whitespacesAndNewlines)), !comm.isEmpty else { continue }
        let sched = (try? String(contentsOfFile: "/proc/self/task/\(task)/schedstat", encoding: .utf8)) ?? ""
        let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
        let cpu = UInt64(sched.split(separator: " ").first ?? "0") ?? 0
        let switches = status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
            .compactMap { UInt64($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
        return (cpu, switches)
    }
    return nil
}

func wait(_ what: String, timeout: Double = 5, _ condition: () -> Bool) throws {
    if !Wait.until(timeout: timeout, interval: 0.001, condition) { throw BenchError("timed out waiting for \(what)") }
}

func main() throws {
    let sway = try HeadlessSway()
    defer { sway.stop() }
    let backend = WaylandBackend(display: sway.socket)
    let manager = KeyboardManager(backend: backend)
    // Each will event with the monotonic time at which the manager's callback ran.
    let wills = Mutex<[(event: KeyboardEvent, time: Double)]>([])
    let subscription = manager.onEvent(delivery: .immediate) { update in
        let now = MonotonicClock.now()
        if update.event.isWill { wills.withLock { $0.append((update.event, now)) } }
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

    let keyboard = try ChildProcess(
        "wvkbd-mobintl", ["--hidden"], environment: sway.clientEnvironment,
        directory: sway.runtime.path)
    defer { keyboard.stop() }
    try wait("wvkbd to handle SIGUSR1 and SIGUSR2") { keyboard.handles(SIGUSR1) && keyboard.handles(SIGUSR2) }

    var bare: [KeyboardEvent: [Double]] = [:]
    var backendLatency: [KeyboardEvent: [Double]] = [:]
    for _ in 0..<rounds {
        for (signal, event) in [(SIGUSR2, KeyboardEvent.willShow), (SIGUSR1, .willHide)] {
            let willsBefore = wills.withLock { $0.count }
            let changesBefore = bareProbe.changes.withLock { $0.count }
            let start = MonotonicClock.now()
            keyboard.signal(signal)
            try wait("\(event) after signal \(signal)") {
                wills.withLock { $0.count } > willsBefore
                    && bareProbe.changes.withLock { $0.count } > changesBefore
            }
            let will = wills.withLock { $0[willsBefore] }
            guard will.event == event else { throw BenchError("expected \(event), got \(will.event)") }
            backendLatency[event, default: []].append(will.time - start)
            bare[event, default: []].append(bareProbe.changes.withLock { $0[changesBefore].time } - start)
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    // Idle: nothing changes on screen; the backend thread should sleep in poll throughout.
    Thread.sleep(forTimeInterval: 0.5)
    let threadBefore = threadUsage(named: "kbd-wayland")
    var usageBefore = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usageBefore)
    Thread.sleep(forTimeInterval: idleSeconds)
    let threadAfter = threadUsage(named: "kbd-wayland")
    var usageAfter = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usageAfter)
    func micros(_ t: timeval) -> Int { t.tv_sec * 1_000_000 + Int(t.tv_usec) }
    let processCPU =
        micros(usageAfter.ru_utime) + micros(usageAfter.ru_stime)
        - micros(usageBefore.ru_utime) - micros(usageBefore.ru_stime)

    print("wlbench: headless sway 1280x800, wvkbd-mobintl, \(rounds) shows and \(rounds) hides")
    print("from the signal to ...                     show p50    show p99    hide p50    hide p99")
    for (label, series) in [
        ("bare libwayland probe: configure     ", bare),
        ("KeyboardManager willShow/willHide    ", backendLatency),
    ] {
        let show = series[.willShow] ?? []
        let hide = series[.willHide] ?? []
        print(
            "\(label)  \(ms(percentile(show, 50)))  \(ms(percentile(show, 99)))  "
                + "\(ms(percentile(hide, 50)))  \(ms(percentile(hide, 99)))")
    }
    if let before = threadBefore, let after = threadAfter {
        print(
            "idle \(Int(idleSeconds)) s, backend thread: \(after.cpu - before.cpu) ns CPU, "
                + "\(after.switches - before.switches) context switches")
    } else {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).map {
            ((try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        print("idle \(Int(idleSeconds)) s, backend thread: not found among \(names)")
    }
    print("idle \(Int(idleSeconds)) s, whole process (bare probe, waits): \(processCPU) us CPU")
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("wlbench: \(error)\n".utf8))
    exit(1)
}
