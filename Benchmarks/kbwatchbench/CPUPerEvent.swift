import Foundation
import KeyboardAdapterCore
import TestSupport

/// CPU per keyboard move of `kbwatch --json` and of its floor, x11bare (a C Xlib client that
/// selects the same events and writes a line of the same size per event), both watching the same
/// moves at once: user and system time of every thread over the moves, divided by the moves.
struct CPUPerEvent {
    /// What one watcher used over the moves.
    struct Watcher {
        var usage = ProcessUsage.zero
        var lines = 0
        var bytes = 0
    }

    var kbwatch = Watcher()
    var floor = Watcher()
    var moves = 0
    /// kbwatch's resident memory after its start-up, before the counted moves (after the warm-up
    /// moves, which map the code of a move's path for the first time) and after them.
    var residentAtStart: ProcessUsage?
    var residentBefore: ProcessUsage?
    var residentAfter: ProcessUsage?

    /// x11bare, built beside the kbwatch the benchmark runs.
    static let x11bare = URL(fileURLWithPath: Kbwatch.path).deletingLastPathComponent()
        .appendingPathComponent("x11bare").path

    /// Moves made before the counted ones.
    static let warmUpMoves = 20

    /// Moves `window` `count` times from a connection of its own, each move given the settle
    /// interval and a little more to end (70 ms), so that each is a change of its own: a
    /// willChangeFrame and a didChangeFrame line from each watcher.
    static func measure(display: String, window: UInt, environment: [String: String?], count: Int) throws
        -> CPUPerEvent
    {
        let kbwatch = try Kbwatch.watch(["--backend", "x11", "--json"], environment: environment)
        defer { kbwatch.stop() }
        let bare = try WatchedProcess(Self.x11bare, [String(window), "50"], environment: environment)
        defer { bare.stop() }
        guard kbwatch.lines.first(from: 0, timeout: 20, where: { $0.contains("\"didShow\"") }) != nil,
            bare.lines.first(from: 0, timeout: 20, where: { $0 == "ready" }) != nil
        else {
            throw TestFailure("kbwatch --json or x11bare did not start: \(kbwatch.errors) \(bare.errors)")
        }
        Thread.sleep(forTimeInterval: 1)
        let driver = try XTestClient.connect(display)
        driver.sync()
        var result = CPUPerEvent()
        result.moves = count
        result.residentAtStart = ProcessUsage.sample(pid: kbwatch.pid)
        // The first moves run a move's code for the first time (its pages are mapped then): they
        // are neither counted nor part of the memory's start.
        for step in 0..<warmUpMoves {
            driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
            Thread.sleep(forTimeInterval: 0.07)
        }
        Thread.sleep(forTimeInterval: 0.3)
        let kbwatchLines = kbwatch.lines.count
        let bareLines = bare.lines.count
        result.residentBefore = ProcessUsage.sample(pid: kbwatch.pid)
        let kbwatchStart = result.residentBefore
        let bareStart = ProcessUsage.sample(pid: bare.pid)
        for step in 0..<count {
            driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
            Thread.sleep(forTimeInterval: 0.07)
        }
        // The last didChangeFrame comes one settle interval after the last move.
        Thread.sleep(forTimeInterval: 0.3)
        guard let kbwatchStart, let bareStart, let kbwatchEnd = ProcessUsage.sample(pid: kbwatch.pid),
            let bareEnd = ProcessUsage.sample(pid: bare.pid)
        else { throw TestFailure("kbwatch or x11bare ended during the moves") }
        result.residentAfter = kbwatchEnd
        result.kbwatch.usage = kbwatchEnd.since(kbwatchStart)
        result.floor.usage = bareEnd.since(bareStart)
        let kbwatchWrote = kbwatch.lines.all.dropFirst(kbwatchLines)
        let bareWrote = bare.lines.all.dropFirst(bareLines)
        result.kbwatch.lines = kbwatchWrote.count
        result.kbwatch.bytes = kbwatchWrote.reduce(0) { $0 + $1.text.utf8.count + 1 }
        result.floor.lines = bareWrote.count
        result.floor.bytes = bareWrote.reduce(0) { $0 + $1.text.utf8.count + 1 }
        return result
    }

    /// Per move, in milliseconds: on-CPU time (exact), and the user and system shares (ticks).
    private func row(_ label: String, _ watcher: Watcher) -> String {
        let perMove = Double(watcher.usage.cpuNanoseconds) / 1e6 / Double(max(moves, 1))
        let tick = 1000.0 / Double(ProcessUsage.ticksPerSecond)
        let user = Double(watcher.usage.userTicks) * tick / Double(max(moves, 1))
        let system = Double(watcher.usage.systemTicks) * tick / Double(max(moves, 1))
        let lineBytes = watcher.lines > 0 ? watcher.bytes / watcher.lines : 0
        return column("  \(label)") + String(format: "%8.3f ms  %7.3f  %7.3f", perMove, user, system)
            + "   \(watcher.lines) lines of \(lineBytes) bytes"
    }

    /// The rows: both watchers, the ratio and the target.
    func rows() -> [String] {
        let ratio = Double(kbwatch.usage.cpuNanoseconds) / Double(max(floor.usage.cpuNanoseconds, 1))
        return [
            "CPU per keyboard move, \(moves) moves, both watching at once (ms per move)",
            column("") + "user+system     user   system",
            row("kbwatch --json (all threads)", kbwatch),
            row("x11bare (C, Xlib: same events, same lines)", floor),
            column("  ratio, kbwatch / x11bare") + String(format: "%8.2fx", ratio) + "   (target <= 1.30x)",
            "  (user+system: each thread's time on a CPU, /proc/PID/task/*/schedstat; the split: utime and",
            "   stime, counted in clock ticks)",
        ]
    }
}
