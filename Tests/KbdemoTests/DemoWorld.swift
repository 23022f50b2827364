import Foundation
import KeyboardAdapter
import ScreenCapture
import TestSupport
import Testing

@testable import kbdemo

/// One pixel test's world: a private Xvfb with openbox, the kbdemo binary on it, and a screen
/// grabber. Everything it starts is ended by pid when the world is released, also on failure.
///
/// Openbox is configured so that both keyboards look as on-screen keyboards do on a desktop:
/// undecorated, borderless, above normal windows and never focused. Then the keyboard's client
/// window (what `xwininfo -id` reports, the ground truth) is exactly what covers the app. A world
/// made `decorated` leaves openbox's title bar and borders on the keyboards: what covers the app
/// is then openbox's frame around the client window (``covered(by:)``).
final class DemoWorld {
    let session: X11Session
    let demo: ChildProcess
    let grabber: ScreenGrabber
    /// The app's top-level window.
    let window: UInt

    /// Starts the world, or returns nil after saying why when a program is missing outside CI.
    /// `prepare` runs on the new server before kbdemo starts (a keyboard whose session bus kbdemo
    /// must share), and returns what kbdemo's environment adds.
    static func make(
        keyboard: String, programs: [String] = [], position: String = "240,40", decorated: Bool = false,
        prepare: (X11Session) throws -> [String: String?] = { _ in [:] }
    ) throws -> DemoWorld? {
        guard try Programs.ready(["Xvfb", "openbox", "xdotool", "xwininfo", keyboard] + programs) else { return nil }
        return try DemoWorld(position: position, decorated: decorated, prepare: prepare)
    }

    private init(position: String, decorated: Bool, prepare: (X11Session) throws -> [String: String?]) throws {
        session = try X11Session(width: 1280, height: 800)
        try session.startWindowManager(
            config: decorated ? X11Session.keyboardsAboveDecoratedConfig : X11Session.keyboardsAboveConfig)
        grabber = try ScreenGrabber(displayName: session.display)
        let demo = try session.start(
            Self.binary, ["--backend", "x11", "--position", position], environment: try prepare(session))
        self.demo = demo
        var id: UInt?
        try Wait.require("kbdemo to create its window", timeout: 15) {
            id =
                demo.log.split(separator: "\n").lazy.compactMap { line -> UInt? in
                    guard line.hasPrefix("kbdemo: window 0x") else { return nil }
                    return UInt(line.dropFirst("kbdemo: window 0x".count), radix: 16)
                }.first
            return id != nil || !demo.isRunning
        }
        guard let id, demo.isRunning else { throw TestFailure("kbdemo did not start: \(demo.log)") }
        window = id
    }

    deinit {
        print("kbdemo on \(session.display) said:\n\(demo.log)")
        grabber.close()
        session.stop()
    }

    /// The kbdemo binary SwiftPM built next to the test bundle.
    static var binary: String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("kbdemo").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return "kbdemo"
    }

    /// A window's frame as `xwininfo -id` reports it; throws when it is gone.
    func frame(of id: UInt) throws -> Rect {
        guard let info = try session.xwininfo(id) else {
            throw TestFailure("xwininfo found no window 0x\(String(id, radix: 16))")
        }
        return Rect(x: info.x, y: info.y, width: info.width, height: info.height)
    }

    /// What window `id` covers on screen, as `xwininfo` reports it: the outer rectangle of the
    /// window manager's frame around it (title bar and borders included), or of the window itself
    /// where nothing frames it; throws when it is gone.
    func covered(by id: UInt) throws -> Rect {
        guard let info = try session.xwininfoCovered(id) else {
            throw TestFailure("xwininfo found no window 0x\(String(id, radix: 16))")
        }
        return Rect(x: info.x, y: info.y, width: info.width, height: info.height)
    }

    /// The first visible window matching an `xdotool search` query, waited for.
    func findWindow(_ query: [String], what: String) throws -> UInt {
        try session.waitForWindow(query, what: what)
    }

    /// How long the bar may take to reach its place: generous, for a loaded CI machine running
    /// other server tests side by side.
    static let settleDeadline = 15.0

    /// Waits until the capture shows the bar where it belongs for the app window and the keyboard
    /// (nil: hidden), both read from `xwininfo` at each try (the keyboard's window manager frame
    /// when `decorated`); records the problems and saves the last capture as a PNG file when it
    /// never does. Returns the last capture.
    @discardableResult
    func expectBar(
        keyboard: UInt?, decorated: Bool = false, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RGBImage? {
        var last: (image: RGBImage, problems: [String], window: Rect, keyboard: Rect?)?
        let settled = Wait.until(timeout: Self.settleDeadline, interval: 0.1) {
            guard let windowFrame = try? frame(of: window) else { return false }
            let keyboardFrame = keyboard.flatMap { try? decorated ? covered(by: $0) : frame(of: $0) }
            guard keyboard == nil || keyboardFrame != nil, let image = try? grabber.capture() else { return false }
            let problems = BarInspection.problems(
                in: image, window: windowFrame, keyboard: keyboardFrame,
                color: Palette.bar, height: BarMetrics.height,
                margin: BarMetrics.fieldMargin)
            last = (image, problems, windowFrame, keyboardFrame)
            return problems.isEmpty
        }
        guard !settled else {
            print(
                "\(step): bar verified for window \(last!.window), keyboard \(last!.keyboard.map { "\($0)" } ?? "hidden")"
            )
            return last?.image
        }
        let path = session.directory + "/failed-" + step.replacingOccurrences(of: " ", with: "-") + ".png"
        if let image = last?.image { try? PNGEncoder.write(image, to: path) }
        Issue.record(
            """
            \(step): the bar is not where it belongs after \(Self.settleDeadline) s (window \(last.map { "\($0.window)" } ?? "?"), \
            keyboard \(last?.keyboard.map { "\($0)" } ?? "hidden")): \(last?.problems ?? ["no capture"]); capture: \(path)
            """, sourceLocation: sourceLocation)
        return last?.image
    }

    /// Waits until kbdemo has printed `count` lines starting with `prefix` (after `kbdemo: `).
    func waitForLines(_ prefix: String, count: Int, timeout: Double = 15) throws {
        try Wait.require("\(count) kbdemo lines '\(prefix)…' (log: \(demo.log))", timeout: timeout) {
            demo.log.split(separator: "\n").filter { $0.hasPrefix("kbdemo: " + prefix) }.count >= count
        }
    }

    /// The CPU time (user + system, in clock ticks) kbdemo uses during the next `seconds`.
    func demoCPUTicks(over seconds: Double) throws -> Int {
        func ticks() throws -> Int {
            let stat = try String(contentsOfFile: "/proc/\(demo.pid)/stat", encoding: .utf8)
            // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
                throw TestFailure("unreadable /proc/\(demo.pid)/stat: \(stat)")
            }
            return user + system
        }
        let before = try ticks()
        Thread.sleep(forTimeInterval: seconds)
        return try ticks() - before
    }

    /// Ends kbdemo with SIGTERM and returns its exit status (nil if it did not exit in time).
    func quitDemo() -> Int32? {
        demo.signal(SIGTERM)
        return demo.waitForExit(timeout: 10)
    }
}
