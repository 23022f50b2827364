import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import TestSupport

// gnomebench: GNOME Shell's keyboard, clicked open in a GTK 3 entry and closed by the focus moving
// to another window, on headless gnome-shell with the package's extension, animations on. Every
// signal the extension sends carries the shell's own CLOCK_MONOTONIC time of the step; from it to
// - gnomebare's line (the floor, Benchmarks/gnomebare, C, sd-bus): it hears the same signal,
//   reads the rectangle and prints it,
// - kbwatch's line for the same step (`--progress --format '%e %y'`): a will line for the start
//   of a slide, a progress line for each step,
// all in one run. Then kbwatch's idle ticks and context switches with the keyboard shown, and its
// memory. Runs the shell as an unprivileged account, as the tests do (see HeadlessGnomeShell).
//
// Usage: gnomebench [ROUNDS] [debian12|debian13|forky|sid] (default 10 on debian12: GNOME Shell 43;
// 48, 50 and 51 from the userlands); GNOMEBENCH_IDLE_SECONDS (default 10).

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10
let stackName = CommandLine.arguments.dropFirst(2).first ?? Stack.debian12.rawValue
guard let stack = Stack(rawValue: stackName) else {
    print("gnomebench: no stack \(stackName): \(Stack.allCases.map(\.rawValue).joined(separator: ", "))")
    exit(2)
}
let idleSeconds = Int(ProcessInfo.processInfo.environment["GNOMEBENCH_IDLE_SECONDS"] ?? "") ?? 10

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let entryScript = """
    import gi
    gi.require_version("Gtk", "3.0")
    from gi.repository import Gtk, GLib
    GLib.set_prgname("kbentry")
    window = Gtk.Window(title="entry")
    window.set_default_size(480, 160)
    entry = Gtk.Entry()
    window.add(entry)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()

    """
let otherScript = """
    import gi
    gi.require_version("Gtk", "3.0")
    from gi.repository import Gtk
    window = Gtk.Window(title="other")
    window.set_default_size(320, 120)
    window.add(Gtk.Button(label="no text here"))
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()

    """

/// Waits until `lines` holds a line at or after `index` that satisfies `matches`.
func waitForLine(_ lines: StampedLines, from index: Int, _ what: String, _ matches: (String) -> Bool) throws {
    let seen = Wait.until(timeout: 10, interval: 0.002) {
        lines.all.dropFirst(index).contains { matches($0.text) }
    }
    if !seen { throw BenchError("timed out waiting for \(what)") }
}

func main() throws {
    guard try Programs.ready(["gdbus"]), try Userland.ready(stack, HeadlessGnomeShell.programs) else { exit(2) }
    let gnome = try HeadlessGnomeShell(stack: stack)
    defer { gnome.stop() }
    try gnome.warmUp()
    let other = try gnome.launchGTK(otherScript, name: "other.py")
    let entry = try gnome.launchGTK(entryScript, name: "entry.py")
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let bare = try gnome.reachableCopy(
        of: URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("gnomebare").path)
    let listener = try gnome.watchCommand([bare])
    defer { listener.stop() }
    try waitForLine(listener.lines, from: 0, "gnomebare to subscribe") { $0 == "ready" }
    let kbwatch = try gnome.watch(["--progress", "--format", "%e %y"])
    defer { kbwatch.stop() }
    Thread.sleep(forTimeInterval: 1)

    // Latencies in seconds from the shell's step: (will, steps) for shows and hides.
    var bareWill = (show: Latencies(), hide: Latencies())
    var watchWill = (show: Latencies(), hide: Latencies())
    var bareSteps = (show: Latencies(), hide: Latencies())
    var watchSteps = (show: Latencies(), hide: Latencies())
    var clickToSignal = Latencies()
    var stepCounts: [Int] = []
    for _ in 0..<rounds {
        for showing in [true, false] {
            let bareMark = listener.lines.count
            let watchMark = kbwatch.lines.count
            // After the click's own activation of the window: the click itself.
            if showing { try gnome.click(entry) } else { try gnome.activate(other) }
            let start = MonotonicClock.now()
            let did = showing ? "didShow" : "didHide"
            try waitForLine(kbwatch.lines, from: watchMark, did) { $0.hasPrefix(did) }
            Thread.sleep(forTimeInterval: 0.1)
            let heard = listener.lines.all.dropFirst(bareMark).map { ($0.time, $0.text.split(separator: " ")) }
            let printed = Array(kbwatch.lines.all.dropFirst(watchMark))
            var steps = 0
            for (time, fields) in heard {
                guard let stamp = fields.last.flatMap({ Double($0) }).map({ $0 / 1_000_000 }) else { continue }
                if fields.first == "visible", fields.count == 4 {
                    if showing { clickToSignal.append(stamp - start) }
                    let will = showing ? "willShow" : "willHide"
                    guard let line = printed.first(where: { $0.text.hasPrefix(will) }) else {
                        throw BenchError("kbwatch printed no \(will)")
                    }
                    if showing {
                        bareWill.show.append(time - stamp)
                        watchWill.show.append(line.time - stamp)
                    } else {
                        bareWill.hide.append(time - stamp)
                        watchWill.hide.append(line.time - stamp)
                    }
                } else if fields.first == "moved", fields.count == 3 {
                    // The same step in kbwatch: a progress line at that y (the last step of a hide is its did).
                    let y = String(fields[1])
                    guard
                        let line = printed.first(where: {
                            $0.text == "progress \(y)" || $0.text == "didHide \(y)"
                        })
                    else { continue }
                    steps += 1
                    if showing {
                        bareSteps.show.append(time - stamp)
                        watchSteps.show.append(line.time - stamp)
                    } else {
                        bareSteps.hide.append(time - stamp)
                        watchSteps.hide.append(line.time - stamp)
                    }
                }
            }
            stepCounts.append(steps)
            Thread.sleep(forTimeInterval: 0.3)
        }
    }
    let shell = "\(stack.gnomeShellMajor), \(stack)"
    print("gnomebench: \(rounds) shows and \(rounds) hides of GNOME Shell's keyboard (gnome-shell \(shell), headless)")
    print(
        "a click in the entry to the extension's VisibilityChanged: p50 \(millisecondsText(clickToSignal.p50)) "
            + "(the shell's 300 ms rest); steps per slide: \(stepCounts.min() ?? 0) to \(stepCounts.max() ?? 0)")
    print(
        "from the shell's step to the line (p50 / p90 / p99)".padding(toLength: 56, withPad: " ", startingAt: 0)
            + "show".padding(toLength: 40, withPad: " ", startingAt: 0) + "hide")
    func cell(_ values: Latencies) -> String {
        "\(millisecondsText(values.p50)) / \(millisecondsText(values.p90)) / \(millisecondsText(values.p99))"
    }
    func row(_ name: String, _ show: Latencies, _ hide: Latencies) {
        print(
            name.padding(toLength: 56, withPad: " ", startingAt: 0)
                + cell(show).padding(
                    toLength: 40, withPad: " ", startingAt: 0) + cell(hide))
    }
    row("start of the slide: gnomebare's line", bareWill.show, bareWill.hide)
    row("start of the slide: kbwatch's will line", watchWill.show, watchWill.hide)
    row("each step: gnomebare's line", bareSteps.show, bareSteps.hide)
    row("each step: kbwatch's progress line", watchSteps.show, watchSteps.hide)
    let ratios = [
        (watchWill.show, bareWill.show), (watchWill.hide, bareWill.hide), (watchSteps.show, bareSteps.show),
        (watchSteps.hide, bareSteps.hide),
    ].map { String(format: "%.2f", $0.0.p50 / $0.1.p50) }
    print(
        "kbwatch / gnomebare at p50: will \(ratios[0])x (show), \(ratios[1])x (hide); steps \(ratios[2])x (show), "
            + "\(ratios[3])x (hide)")

    try gnome.click(entry)
    try waitForLine(kbwatch.lines, from: 0, "the last didShow") { $0.hasPrefix("didShow") }
    Thread.sleep(forTimeInterval: 1)
    let signalsBefore = listener.lines.count
    guard let before = ProcessUsage.sample(pid: kbwatch.pid) else { throw BenchError("kbwatch's usage") }
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    guard let later = ProcessUsage.sample(pid: kbwatch.pid) else { throw BenchError("kbwatch's usage") }
    print(
        "kbwatch idle \(idleSeconds) s with the keyboard shown: \(later.ticks - before.ticks) ticks, "
            + "\(later.switches - before.switches) context switches; resident \(later.residentKiB) KiB; "
            + "signals from the extension meanwhile: \(listener.lines.count - signalsBefore)")
}

do {
    try main()
} catch {
    print("gnomebench: \(error)")
    exit(1)
}
