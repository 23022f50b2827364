import Foundation
import TestSupport
import Testing

/// The descriptor in a real GLib program: kbglib runs g_main_loop_run() on its main thread, with
/// the manager's descriptor as a unix fd source, on a private X server with xvkbd.
@Suite("Delivery in a GLib main loop")
struct GlibLoopTests {
    /// The kbglib binary, built beside kbwatch.
    static let path = Kbwatch.path.replacingOccurrences(of: "/kbwatch", with: "/kbglib")

    /// Starts kbglib with `arguments` on `session`'s display, with the X11 backend.
    func start(_ arguments: [String] = [], on session: X11Session) throws -> WatchedProcess {
        try WatchedProcess(
            Self.path, arguments, environment: session.environment.merging(["KEYBOARD_ADAPTER_BACKEND": "x11"]) { $1 })
    }

    /// Waits until `watcher` has printed `count` lines and returns them.
    func lines(_ count: Int, from watcher: WatchedProcess, _ what: String) throws -> [String] {
        try Wait.require("\(count) lines from kbglib for \(what): \(watcher.errors)", timeout: 15) {
            watcher.lines.count >= count
        }
        return watcher.lines.all.map(\.text)
    }

    /// xvkbd's frame as `xwininfo -id` has it, as the example prints a frame.
    func frame(of window: UInt, in session: X11Session) throws -> String {
        let info = try #require(try session.xwininfo(window))
        return "\(info.x),\(info.y) \(info.width)x\(info.height)"
    }

    @Test("xvkbd shown, moved and killed: every update on the main thread, the frames as the server has them")
    func showMoveHide() throws {
        guard try Programs.ready(["Xvfb", "xvkbd", "xdotool", "xwininfo", Self.path]) else { return }
        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let watcher = try start(["--exit-after", "6"], on: session)
        defer { watcher.stop() }
        let keyboard = try session.start("xvkbd")
        defer { keyboard.stop() }
        let shown = try lines(2, from: watcher, "the show")
        let window = try #require(
            UInt(try session.run("xdotool", ["search", "--onlyvisible", "--class", "xvkbd"]).prefix { $0 != "\n" }))
        let first = try frame(of: window, in: session)
        #expect(shown == ["willShow xvkbd \(first) on the main thread", "didShow xvkbd \(first) on the main thread"])

        try session.xdotool("windowmove", "0x" + String(window, radix: 16), "200", "500")
        let moved = try lines(4, from: watcher, "the move").dropFirst(2)
        let placed = try frame(of: window, in: session)
        #expect(placed.hasPrefix("200,500 "))
        #expect(
            moved == [
                "willChangeFrame xvkbd \(placed) on the main thread",
                "didChangeFrame xvkbd \(placed) on the main thread",
            ])

        // A second program started now hears of the keyboard already there, and ends on SIGTERM.
        let late = try start(on: session)
        defer { late.stop() }
        #expect(
            try lines(2, from: late, "a keyboard already visible") == [
                "willShow xvkbd \(placed) on the main thread", "didShow xvkbd \(placed) on the main thread",
            ])
        kill(late.pid, SIGTERM)
        #expect(late.lines.waitForEnd(timeout: 10))
        #expect(late.exitStatus == 0, "\(late.errors)")

        // The hide ends just past the bottom edge, below where the keyboard was.
        keyboard.signal(SIGTERM)
        let size = placed.split(separator: " ")[1]
        let gone = "200,\(session.height) \(size)"
        #expect(
            try lines(6, from: watcher, "the hide").dropFirst(4) == [
                "willHide xvkbd \(gone) on the main thread", "didHide xvkbd \(gone) on the main thread",
            ])
        // --exit-after 6: the program quits its loop by itself.
        #expect(watcher.lines.waitForEnd(timeout: 10))
        #expect(watcher.exitStatus == 0, "\(watcher.errors)")
        #expect(watcher.lines.count == 6)
    }
}
