import Foundation

/// fcitx5 and a one-entry GTK window that types through it, on an `X11Session`, sharing a session
/// bus of their own (`dbus-run-session`). Typing the Unicode-input hotkey and a word into the
/// focused entry brings up fcitx5's candidate window, a real input-method panel.
public final class Fcitx5: @unchecked Sendable {
    /// `dbus-run-session`, which owns the bus and ends it when the entry window exits.
    public let runner: ChildProcess
    /// The entry window's id.
    public let entryWindow: UInt
    private let session: X11Session

    /// The entry window: GTK 3 through python3-gi, typing through fcitx5's GTK module.
    static let entryProgram = """
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gtk
        window = Gtk.Window(title="fcitx5-entry")
        window.set_default_size(400, 60)
        window.add(Gtk.Entry())
        window.connect("destroy", Gtk.main_quit)
        window.show_all()
        Gtk.main()
        """

    /// Whether this machine can run the entry window (python3 with GTK 3 introspection).
    public static var entryAvailable: Bool {
        (try? Programs.run("/usr/bin/python3", ["-c", "import gi; gi.require_version('Gtk', '3.0')"]).status) == 0
    }

    /// Starts fcitx5, waits until it owns its bus name, then starts the entry window and waits for it.
    public init(on session: X11Session) throws {
        self.session = session
        let tag = UUID().uuidString.prefix(8)
        let entry = "\(session.directory)/fcitx5-entry-\(tag).py"
        let script = "\(session.directory)/fcitx5-\(tag).sh"
        try Self.entryProgram.write(toFile: entry, atomically: true, encoding: .utf8)
        let lines = [
            "#!/bin/sh",
            "fcitx5 &",
            // The GTK module connects at start-up: the entry must not start before fcitx5 serves.
            "for i in $(seq 100); do",
            "  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus "
                + "org.freedesktop.DBus.NameHasOwner string:org.fcitx.Fcitx5 2>/dev/null | grep -q true && break",
            "  sleep 0.1",
            "done",
            "GTK_IM_MODULE=fcitx exec /usr/bin/python3 '\(entry)'",
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        runner = try session.start("dbus-run-session", ["--", script])
        var found: UInt?
        let runner = self.runner
        try Wait.require("the fcitx5 entry window", timeout: 20) {
            let output = (try? session.run("xdotool", ["search", "--onlyvisible", "--name", "fcitx5-entry"])) ?? ""
            found = output.split(separator: "\n").compactMap { UInt($0) }.first
            return found != nil || !runner.isRunning
        }
        guard let found else { throw TestFailure("the fcitx5 session ended: \(runner.log)") }
        entryWindow = found
    }

    deinit { stop() }

    /// Focuses the entry, empties it, and types the Unicode-input hotkey and `word`: the candidate
    /// window opens (once the entry's input context has reached fcitx5).
    public func openCandidates(typing word: String = "smile") throws {
        let id = String(entryWindow)
        try session.run("xdotool", ["windowactivate", "--sync", id])
        try session.run("xdotool", ["key", "Escape", "ctrl+a", "BackSpace"])
        // Real key events (XTEST), not --window, which sends synthetic ones that GTK ignores.
        try session.run("xdotool", ["key", "ctrl+alt+shift+u"])
        try session.run("xdotool", ["type", "--delay", "30", word])
    }

    /// Closes the candidate window (Escape leaves the Unicode input mode).
    public func closeCandidates() throws {
        try session.run("xdotool", ["key", "Escape"])
    }

    /// Ends the entry window, fcitx5 and the bus, by pid.
    public func stop() {
        let started = ChildProcess.descendants(of: runner.pid)
        for pid in started.reversed() where kill(pid, 0) == 0 { kill(pid, SIGTERM) }
        runner.stop(grace: 2)
        for pid in started where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }
}
