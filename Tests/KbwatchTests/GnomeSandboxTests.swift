import Foundation
import TestSupport
import Testing

extension GnomeTests {
    /// An app in a Flatpak-like sandbox on GNOME: its GTK window a Wayland client of the shell,
    /// its bus only through xdg-dbus-proxy, subscribed to the session service (kbwatch --serve,
    /// the gnome backend) naming another app's id. The service judges it by the pid GNOME Shell
    /// gives the focused window (the one the compositor knows from the client's connection),
    /// whose process runs in the app's sandbox.
    @Test(
        "a sandboxed app: local exactly while its own window has the focus, by the pid GNOME Shell gives it",
        arguments: [Stack.debian12, .sid])
    func sandboxedSubscriber(stack: Stack) throws {
        guard try Self.ready(stack), try Programs.ready(["bwrap", "xdg-dbus-proxy"]) else { return }
        let session = try Session(stack: stack)
        let gnome = session.gnome
        defer { gnome.stop() }
        let sandboxed = try SandboxedSessionApp(
            environment: gnome.environment, extra: ["WAYLAND_DISPLAY=\(gnome.socket)", "GDK_BACKEND=wayland"],
            user: gnome.user, runtime: gnome.runtime, busAddress: gnome.busAddress, naming: "kbentry",
            run: { try gnome.run($0) },
            watch: { try gnome.watchCommand($0) }, kbwatch: { try gnome.watch($0) })
        defer { sandboxed.stop() }
        let (service, app) = (sandboxed.service, sandboxed.app)
        try Wait.require("the sandboxed app to subscribe (\(app.log))", timeout: 20) { app.log.contains("subscribed") }

        // Its own window focused, then the entry app it named, then its own again: each time the
        // keyboard shown and hidden through the extension.
        func cycle(_ focused: ChildProcess, _ expected: String, _ count: Int) throws {
            try gnome.focus(focused)
            Thread.sleep(forTimeInterval: 0.3)
            let shown = try gnome.kbwatch(["--show"])
            #expect(shown.status == 0, "\(shown.output)")
            try Wait.require("didShow \(count) (\(app.log))", timeout: 15) {
                app.log.components(separatedBy: "didShow").count > count
            }
            let hidden = try gnome.kbwatch(["--hide"])
            #expect(hidden.status == 0, "\(hidden.output)")
            try Wait.require("didHide \(count) (\(app.log))", timeout: 15) {
                app.log.components(separatedBy: "didHide").count > count
            }
            let events = app.log.split(separator: "\n").filter { $0.hasPrefix("willShow") || $0.hasPrefix("didShow") }
            #expect(events.suffix(2) == ["willShow \(expected)", "didShow \(expected)"], "\(app.log)")
        }
        try cycle(app, "True", 1)
        try cycle(session.entry, "False", 2)
        try cycle(app, "True", 3)
        #expect(service.isRunning, "\(service.errors)")
    }
}
