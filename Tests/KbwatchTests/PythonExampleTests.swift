import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

/// The non-Swift example (`Examples/python/kbbar.py`, GTK 3), run headless against a real
/// keyboard, reading `kbwatch --json` or, with `--service`, the session service through
/// libkeyboard-adapter (the build `KeyboardAdapterLibrary` makes, through `GI_TYPELIB_PATH`): its
/// bar must end exactly on the keyboard's top edge as `xwininfo -id` reports it, follow a move, and
/// return to the window's bottom when the keyboard hides (see `ExampleBar`).
@Suite("Python example: kbbar")
struct PythonExampleTests {
    static let script = SchemaValidator.repository.appendingPathComponent("Examples/python/kbbar.py").path

    /// Whether python3 with GTK 3 is there; skips (fails under CI) when it is not.
    static func pythonReady() throws -> Bool {
        guard Fcitx5.entryAvailable else {
            try Programs.skip("python3 with GTK 3 (python3-gi, gir1.2-gtk-3.0) is missing")
            return false
        }
        return true
    }

    @Test("xvkbd over the window's bottom: the bar moves above it, follows a move, and comes back on hide")
    func xvkbd() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd"]), try Self.pythonReady() else { return }
        let session = try X11Session()
        defer { session.stop() }
        let app = try session.start("/usr/bin/python3", [Self.script, "--kbwatch", Kbwatch.path] + ExampleBar.window)
        defer { print("kbbar on \(session.display) said:\n\(app.log)") }
        try ExampleBar.followsKeyboard(app, on: session)

        // SIGTERM ends kbbar cleanly, and the kbwatch it started with it.
        let watchers = ChildProcess.descendants(of: app.pid)
        #expect(!watchers.isEmpty, "kbbar runs kbwatch")
        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "kbbar ends cleanly on SIGTERM")
        #expect(watchers.allSatisfy { kill($0, 0) != 0 }, "kbwatch outlived kbbar")
    }

    @Test(
        "--service: libkeyboard-adapter starts the session service, the bar follows xvkbd, survives the service's death, and the service ends once kbbar has"
    )
    func service() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", "dbus-send"]),
            try Self.pythonReady(), try KeyboardAdapterLibrary.ready()
        else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        try ExampleBar.followsKeyboardThroughService(in: world) {
            try world.session.start(
                "/usr/bin/python3", [Self.script, "--service"] + ExampleBar.window,
                environment: world.environment.merging(KeyboardAdapterLibrary.environment) { $1 })
        }
    }
}
