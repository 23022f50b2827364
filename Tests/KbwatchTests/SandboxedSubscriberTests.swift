import Foundation
import TestSupport
import Testing

/// A subscriber run as Flatpak runs an app: in a bubblewrap sandbox of its own (its own pid
/// namespace, a `/.flatpak-info` naming it), its bus only through xdg-dbus-proxy (itself in a
/// sandbox with the same `/.flatpak-info`, allowed to talk to the service alone), on the session
/// service's real bus, with xvkbd on Xvfb; beside it, kbwatch in the same sandbox.
@Suite("the session service judges a sandboxed app by its sandbox")
struct SandboxedSubscriberTests {
    static let appID = "org.keyboardadapter.test.Chat"

    /// The app: subscribes (naming the focused window and its pid, which are not its own) and
    /// prints `EVENT LOCAL` for each SubscriberEvent, `LOCAL` being `None` where the key is missing.
    static let app = #"""
        import sys
        from gi.repository import Gio, GLib

        NAME, PATH, IFACE = "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2"
        bus = Gio.DBusConnection.new_for_address_sync(
            sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

        def signalled(bus, sender, path, interface, member, parameters):
            update = parameters.unpack()[0]
            print(update["event"], update.get("local"), flush=True)

        bus.signal_subscribe(NAME, IFACE, "SubscriberEvent", PATH, None, Gio.DBusSignalFlags.NONE, signalled)
        options = {"window_ids": GLib.Variant("at", [int(sys.argv[2], 16)]), "pids": GLib.Variant("au", [int(sys.argv[3])])}
        bus.call_sync(NAME, PATH, IFACE, "Subscribe", GLib.Variant("(a{sv})", (options,)), None,
                      Gio.DBusCallFlags.NONE, 25000, None)
        print("subscribed", flush=True)
        GLib.MainLoop().run()
        """#

    /// A sandbox as Flatpak makes one: a root of its own with the host's /usr, its own pid
    /// namespace, `info` as `/.flatpak-info`, `shared` (where the sockets are) bound in, and
    /// `readable` folders read-only.
    static func sandboxed(info: String, shared: String, readable: [String] = [], _ command: [String]) -> [String] {
        readable.flatMap { ["--ro-bind", $0, $0] } + [
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
            "--bind", shared, shared, "--ro-bind", info, "/.flatpak-info", "--unshare-pid", "--die-with-parent",
            "--",
        ] + command
    }

    /// The host pid of the process whose command line holds `marker` and that runs in a sandbox.
    static func sandboxedProcess(marked marker: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let line = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: line, as: UTF8.self).contains(marker),
                FileManager.default.fileExists(atPath: "/proc/\(entry)/root/.flatpak-info")
            else { continue }
            return pid
        }
        return nil
    }

    @Test(
        "the ids a sandboxed app names go; a window of a process in its sandbox is its own; kbwatch works through the proxy"
    )
    func sandboxedApp() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "bwrap", "xdg-dbus-proxy"])
        else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let directory = world.session.directory
        let info = directory + "/flatpak-info"
        try "[Application]\nname=\(Self.appID)\n\n[Instance]\ninstance-id=1\n".write(
            toFile: info, atomically: true, encoding: .utf8)
        let script = directory + "/sandboxed-app.py"
        try Self.app.write(toFile: script, atomically: true, encoding: .utf8)
        let busSocket = String(world.bus.address.dropFirst("unix:path=".count))
        let proxySocket = directory + "/proxy-bus"
        let proxy = try world.session.start(
            "bwrap",
            Self.sandboxed(
                info: info, shared: directory,
                ["xdg-dbus-proxy", world.bus.address, proxySocket, "--filter", "--talk=org.keyboardadapter.Watcher"]))
        defer { proxy.stop() }
        try Wait.require("the proxy's socket (\(proxy.log))", timeout: 10) {
            FileManager.default.fileExists(atPath: proxySocket)
        }
        #expect(FileManager.default.fileExists(atPath: busSocket))

        // The service, and beside the app a subscriber outside any sandbox naming the same pid.
        let host = try Kbwatch.start(["--json", "--from-service", "--pid", String(world.mine.pid)], environment: env)
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let mineWindow = try #require(world.mineWindow)
        let app = try world.session.start(
            "bwrap",
            Self.sandboxed(
                info: info, shared: directory,
                [
                    "/usr/bin/python3", script, "unix:path=" + proxySocket, String(mineWindow, radix: 16),
                    String(world.mine.pid),
                ]))
        defer { app.stop() }
        try Wait.require("the sandboxed app to subscribe (\(app.log))", timeout: 20) { app.log.contains("subscribed") }
        let appPID = try #require(Self.sandboxedProcess(marked: script), "the app's host pid")
        // kbwatch in the same sandbox, its own bus client (sd-bus) through the same proxy, which
        // takes a handshake only step by step before xdg-dbus-proxy 0.1.6.
        let kbwatch = URL(fileURLWithPath: Kbwatch.path).deletingLastPathComponent().deletingLastPathComponent().path
        let toolchain = "/opt/swift"
        let sandboxedWatch = try world.session.start(
            "bwrap",
            ["--setenv", "DBUS_SESSION_BUS_ADDRESS", "unix:path=" + proxySocket]
                + Self.sandboxed(
                    info: info, shared: directory,
                    readable: [kbwatch] + (FileManager.default.fileExists(atPath: toolchain) ? [toolchain] : []),
                    [Kbwatch.path, "--json", "--from-service"]))
        defer { sandboxedWatch.stop() }

        // The focused window is `mine`'s, which the app named: not the app's.
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        try Wait.require("didShow (\(app.log))", timeout: 15) { app.log.contains("didShow") }
        #expect(app.log.contains("willShow False\ndidShow False"), "\(app.log)")
        #expect(host.log.contains(#""event":"didShow""#) && host.log.contains(#""local":true"#), "\(host.log)")
        try Wait.require("the sandboxed kbwatch's didShow (\(sandboxedWatch.log))", timeout: 15) {
            sandboxedWatch.log.contains(#""event":"didShow""#)
        }
        #expect(sandboxedWatch.log.contains(#""local":false"#), "\(sandboxedWatch.log)")
        keyboard.stop()
        try Wait.require("didHide (\(app.log))", timeout: 15) { app.log.contains("didHide") }

        // The same window, now saying it is the app's process: the process runs in the app's
        // sandbox, so the window is the app's.
        world.apps.setCardinals(mineWindow, "_NET_WM_PID", [UInt(appPID)])
        world.apps.sync()
        let again = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { again.stop() }
        try Wait.require("the second didShow (\(app.log))", timeout: 15) {
            app.log.components(separatedBy: "didShow").count > 2
        }
        #expect(app.log.contains("willShow True\ndidShow True"), "\(app.log)")
        try Wait.require("the sandboxed kbwatch's second didShow (\(sandboxedWatch.log))", timeout: 15) {
            sandboxedWatch.log.components(separatedBy: #""event":"didShow""#).count > 2
        }
        let second = sandboxedWatch.log.split(separator: "\n").last { $0.contains(#""event":"didShow""#) } ?? ""
        #expect(second.contains(#""local":true"#), "\(sandboxedWatch.log)")
    }
}
