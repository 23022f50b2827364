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
        let service = try kwin.watch(["--serve", "--stay"])
        defer { service.stop() }
        try Wait.require("the service on the session bus (\(service.errors))", timeout: 15) {
            (try? kwin.run([
                "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner", "org.keyboardadapter.Watcher",
            ]))?.output.contains("true") == true
        }

        let appID = SandboxedSubscriberTests.appID
        let info = try kwin.runtime.write("flatpak-info", "[Application]\nname=\(appID)\n")
        let proxySocket = kwin.runtime.xdg + "/proxy-bus"
        let shared = kwin.runtime.path
        let proxy = try kwin.watchCommand(
            ["bwrap"]
                + SandboxedSubscriberTests.sandboxed(
                    info: info, shared: shared,
                    ["xdg-dbus-proxy", kwin.busAddress, proxySocket, "--filter", "--talk=org.keyboardadapter.Watcher"]))
        defer { proxy.stop() }
        try Wait.require("the proxy's socket (\(proxy.errors))", timeout: 10) {
            FileManager.default.fileExists(atPath: proxySocket)
        }
        let script = try kwin.runtime.write("sandboxed-chat.py", SandboxedSubscriberTests.waylandApp)
        let (program, arguments) = TestUser.command(
            ["/usr/bin/env", "-i"] + kwin.environment + [
                "GDK_BACKEND=wayland", "NO_AT_BRIDGE=1", "GSETTINGS_BACKEND=memory", "bwrap",
            ]
                + SandboxedSubscriberTests.sandboxed(
                    info: info, shared: shared,
                    ["/usr/bin/python3", script, "unix:path=" + proxySocket, appID, "org.example.Other"]),
            as: kwin.user)
        let app = try ChildProcess(program, arguments, directory: kwin.runtime.path)
        defer { app.stop() }
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
