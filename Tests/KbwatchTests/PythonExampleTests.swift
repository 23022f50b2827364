import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

/// The non-Swift example (`Examples/python/kbbar.py`, GTK 3 reading `kbwatch --json`), run headless
/// against a real keyboard: its bar must end exactly on the keyboard's top edge as `xwininfo -id`
/// reports it, follow a move, and return to the window's bottom when the keyboard hides.
@Suite("Python example: kbbar")
struct PythonExampleTests {
    static let script = SchemaValidator.repository.appendingPathComponent("Examples/python/kbbar.py").path

    /// The bar bottoms kbbar has printed so far (`bar bottom Y inset N` lines).
    static func barBottoms(_ log: String) -> [Int] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("bar bottom ") else { return nil }
            return Int(line.dropFirst("bar bottom ".count).prefix { $0 != " " })
        }
    }

    @Test("xvkbd over the window's bottom: the bar moves above it, follows a move, and comes back on hide")
    func xvkbd() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd"]) else { return }
        guard Fcitx5.entryAvailable else {
            try Programs.skip("python3 with GTK 3 (python3-gi, gir1.2-gtk-3.0) is missing")
            return
        }
        let session = try X11Session()
        defer { session.stop() }
        // The window's client area: 800x600 at 240,40, so its bottom edge is at 640.
        let app = try session.start(
            "/usr/bin/python3", [Self.script, "--kbwatch", Kbwatch.path, "--position", "240,40", "--size", "800x600"])
        defer { print("kbbar on \(session.display) said:\n\(app.log)") }
        func expectBar(at bottom: Int, _ step: String) throws {
            try Wait.require("kbbar's bar bottom at \(bottom) (\(step)); it said:\n\(app.log)", timeout: 15) {
                Self.barBottoms(app.log).last == bottom || !app.isRunning
            }
            #expect(Self.barBottoms(app.log).last == bottom, "\(step)")
        }
        try expectBar(at: 640, "the window alone")

        // Covers the window's bottom 150 rows, over the whole width of the screen.
        try session.start("xvkbd", ["-geometry", "1280x220+0+490"])
        var keyboard: UInt = 0
        try Wait.require("xvkbd's window", timeout: 15) {
            let found = try? Programs.run(
                "xdotool", ["search", "--onlyvisible", "--class", "XVkbd"], environment: session.environment)
            keyboard = found?.output.split(separator: "\n").compactMap { UInt($0) }.first ?? 0
            return keyboard != 0
        }
        let shown = try #require(try session.xwininfo(keyboard))
        #expect(shown.y < 640 && shown.y + shown.height > 640, "xvkbd covers the window's bottom: \(shown)")
        try expectBar(at: shown.y, "xvkbd shown")

        try session.xdotool("windowmove", String(keyboard), "0", "380")
        let moved = try #require(try session.xwininfo(keyboard))
        #expect(moved.y == 380)
        try expectBar(at: moved.y, "xvkbd moved up")

        try session.xdotool("windowunmap", String(keyboard))
        try expectBar(at: 640, "xvkbd hidden")
        #expect(app.log.contains("willShow xvkbd") && app.log.contains("didHide xvkbd"))
        // Every report is a laid-out bar: its bottom is the window's bottom minus the inset.
        let reports = app.log.split(separator: "\n").filter { $0.hasPrefix("bar bottom ") }
        for report in reports {
            let numbers = report.split(separator: " ").compactMap { Int($0) }
            #expect(numbers.count == 2 && numbers[0] + numbers[1] == 640, "\(report)")
        }

        // SIGTERM ends kbbar cleanly, and the kbwatch it started with it.
        let watchers = ChildProcess.descendants(of: app.pid)
        #expect(!watchers.isEmpty, "kbbar runs kbwatch")
        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "kbbar ends cleanly on SIGTERM")
        #expect(watchers.allSatisfy { kill($0, 0) != 0 }, "kbwatch outlived kbbar")
    }
}
