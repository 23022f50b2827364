import Foundation
import TestSupport
import Testing

extension KWin6Tests {
    /// An app in a Flatpak-like sandbox on KWin 6.3 with maliit: its GTK window a Wayland client
    /// of KWin, its bus only through xdg-dbus-proxy, subscribed to the session service (kbwatch
    /// --serve, the kwin backend and its script) naming another app's id. The service judges it by
    /// the pid KWin gives the active window (from the client's connection), whose process runs in
    /// the app's sandbox. KWin gives the focus to each new window and back when it closes.
    @Test("a sandboxed app: local exactly while its own window has the focus, by the pid KWin gives it")
    func sandboxedSubscriber() throws {
        guard try Programs.ready(["dbus-send", "gdbus", "bwrap", "xdg-dbus-proxy"]),
            try Userland.ready(.debian13, Self.sessionPrograms)
        else { return }
        let kwin = try HeadlessKWin(stack: .debian13)
        defer { kwin.stop() }
        let sandboxed = try SandboxedSessionApp(
            environment: kwin.environment, extra: ["GDK_BACKEND=wayland"], user: kwin.user, runtime: kwin.runtime,
            busAddress: kwin.busAddress, naming: "org.example.Other", run: { try kwin.run($0) },
            watch: { try kwin.watchCommand($0) }, kbwatch: { try kwin.watch($0) })
        defer { sandboxed.stop() }
        let (service, app) = (sandboxed.service, sandboxed.app)
        try Wait.require("the sandboxed app's window to be active (\(app.log))", timeout: 20) {
            app.log.split(separator: "\n").last == "active"
        }

        func cycle(_ expected: String, _ count: Int) throws {
            try kwin.forceActivate()
            try kwin.waitForVisible(true)
            try Wait.require("didShow \(count) (\(app.log))", timeout: 15) {
                app.log.components(separatedBy: "didShow").count > count
            }
            try kwin.deactivate()
            try kwin.waitForVisible(false)
            try Wait.require("didHide \(count) (\(app.log))", timeout: 15) {
                app.log.components(separatedBy: "didHide").count > count
            }
            let events = app.log.split(separator: "\n").filter { $0.hasPrefix("willShow") || $0.hasPrefix("didShow") }
            #expect(events.suffix(2) == ["willShow \(expected)", "didShow \(expected)"], "\(app.log)")
        }
        try cycle("True", 1)
        // Another app, the one the sandboxed app named, takes the focus; closed, it gives it back.
        let other = try kwin.launchGTK(EntryApp.script, name: "other.py")
        try Wait.require("the other app to be active (\(other.log))", timeout: 15) { other.log.contains("active") }
        try Wait.require("the sandboxed app to be inactive", timeout: 10) {
            app.log.split(separator: "\n").last == "inactive"
        }
        try cycle("False", 2)
        other.stop()
        try Wait.require("the sandboxed app to be active again (\(app.log))", timeout: 15) {
            app.log.split(separator: "\n").last == "active"
        }
        try cycle("True", 3)
        #expect(service.isRunning, "\(service.errors)")
    }
}
