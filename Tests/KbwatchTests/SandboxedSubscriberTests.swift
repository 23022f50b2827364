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

    /// What both apps do with the service's signals: keep the verdicts sent to them (`Verdict`),
    /// and print `EVENT LOCAL` for each event, broadcast (`Event`, `LOCAL` from the verdict for its
    /// show) or addressed to them (`SubscriberEvent`), `LOCAL` being `None` when unknown.
    static let subscriberSignals = #"""
        changes, first = [], []

        def verdict(bus, sender, path, interface, member, parameters):
            show, values = parameters.unpack()
            changes[:] = [c for c in changes if c[0] < show] + [(show, values.get("local"))]
            first[:] = [min(first + [show])]

        def event(bus, sender, path, interface, member, parameters):
            update = parameters.unpack()[0]
            if not first or update["show"] < first[0]:
                return  # sent before the subscription
            print(update["event"], next((l for s, l in reversed(changes) if s <= update["show"]), None), flush=True)

        def replayed(bus, sender, path, interface, member, parameters):
            update = parameters.unpack()[0]
            print(update["event"], update.get("local"), flush=True)

        for member, handler in [("Verdict", verdict), ("Event", event), ("SubscriberEvent", replayed)]:
            bus.signal_subscribe(NAME, IFACE, member, PATH, None, Gio.DBusSignalFlags.NONE, handler)
        """#

    /// The app: makes a window of its own (an xmessage in its sandbox), subscribes (naming the
    /// focused window and its pid, which are not its own) and prints `EVENT LOCAL` for each
    /// SubscriberEvent, `LOCAL` being `None` where the key is missing.
    static let app = #"""
        import subprocess
        import sys
        from gi.repository import Gio, GLib

        window = subprocess.Popen(["xmessage", "-name", "chat", "-title", "sandboxed app", "-geometry",
                                   "300x200+500+100", "sandboxed app"])

        NAME, PATH, IFACE = "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2"
        bus = Gio.DBusConnection.new_for_address_sync(
            sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

        \#(subscriberSignals)
        options = {"window_ids": GLib.Variant("at", [int(sys.argv[2], 16)]), "pids": GLib.Variant("au", [int(sys.argv[3])])}
        bus.call_sync(NAME, PATH, IFACE, "Subscribe", GLib.Variant("(a{sv})", (options,)), None,
                      Gio.DBusCallFlags.NONE, 25000, None)
        print("subscribed", flush=True)
        GLib.MainLoop().run()
        """#

    /// A sandbox as Flatpak makes one: a root of its own with the /usr and /etc of `system` (the
    /// host's, or a userland's), its own pid namespace, `info` as `/.flatpak-info`, `shared` (where
    /// the bus sockets are) and the X server's socket bound in, and `readable` folders read-only.
    static func sandboxed(
        info: String, shared: String, readable: [String] = [], system: String = "", _ command: [String]
    ) -> [String] {
        readable.flatMap { ["--ro-bind", $0, $0] } + [
            "--ro-bind", system + "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--ro-bind", system + "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
            "--bind", shared, shared, "--ro-bind", info, "/.flatpak-info", "--ro-bind-try",
            "/tmp/.X11-unix", "/tmp/.X11-unix", "--unshare-pid", "--die-with-parent",
            "--",
        ] + command
    }

    @Test(
        "the ids a sandboxed app names go; local exactly while its own window (made in its sandbox) has the focus; kbwatch works through the proxy (Debian 12's 0.1.4, Debian 13's 0.1.6)",
        arguments: [Stack.debian12, .debian13])
    func sandboxedApp(proxyFrom stack: Stack) throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "bwrap"]),
            try Userland.ready(stack, ["xdg-dbus-proxy"])
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
        // The proxy of `stack`, run from its /usr in the app's sandbox, as Flatpak runs its own.
        let proxy = try world.session.start(
            "bwrap",
            Self.sandboxed(
                info: info, shared: directory, system: stack.suite == nil ? "" : Userland.root(stack),
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
        let appWindow = try world.session.window(titled: "sandboxed app", of: app)
        // Mapped after `mine`'s: the window manager focused it; `mine` gets the focus back.
        try world.session.activate(appWindow, readBy: world.apps)
        try world.session.activate(mineWindow, readBy: world.apps)
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
        // The host's kbwatch is another subscriber: under load its didShow may come after the app's.
        try Wait.require("the host kbwatch's didShow (\(host.log))", timeout: 15) {
            host.log.contains(#""event":"didShow""#)
        }
        #expect(host.log.contains(#""local":true"#), "\(host.log)")
        try Wait.require("the sandboxed kbwatch's didShow (\(sandboxedWatch.log))", timeout: 15) {
            sandboxedWatch.log.contains(#""event":"didShow""#)
        }
        #expect(sandboxedWatch.log.contains(#""local":false"#), "\(sandboxedWatch.log)")
        keyboard.stop()
        try Wait.require("didHide (\(app.log))", timeout: 15) { app.log.contains("didHide") }

        // The app's own window focused: made by a process in the app's sandbox, it is the app's.
        try world.session.activate(appWindow, readBy: world.apps)
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
        try Wait.require("the host subscriber's second didShow (\(host.log))", timeout: 15) {
            host.log.components(separatedBy: #""event":"didShow""#).count > 2
        }
        let hostSecond = host.log.split(separator: "\n").last { $0.contains(#""event":"didShow""#) } ?? ""
        #expect(hostSecond.contains(#""local":false"#), "\(host.log)")
    }

    /// The app on sway: a GTK 3 window of its own (app id `appID`), and a subscription through the
    /// proxy that names another app's id; prints `active`/`inactive` as its window gains and loses
    /// the focus, and `EVENT LOCAL` for each SubscriberEvent.
    static let waylandApp = #"""
        import signal
        import sys
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gio, GLib, Gtk

        NAME, PATH, IFACE = "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2"
        GLib.set_prgname(sys.argv[2])
        bus = Gio.DBusConnection.new_for_address_sync(
            sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

        \#(subscriberSignals)
        options = {"app_ids": GLib.Variant("as", [sys.argv[3]])}
        bus.call_sync(NAME, PATH, IFACE, "Subscribe", GLib.Variant("(a{sv})", (options,)), None,
                      Gio.DBusCallFlags.NONE, 25000, None)
        print("subscribed", flush=True)
        window = Gtk.Window(title=sys.argv[2])
        window.add(Gtk.Entry())
        window.connect("notify::is-active", lambda w, _: print("active" if w.is_active() else "inactive", flush=True))
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
        window.show_all()
        Gtk.main()
        """#

    @Test("on sway: local exactly while the sandboxed app's own window has the focus, judged by sway's pid")
    func onSway() throws {
        guard try Programs.ready(["swaymsg", "dbus-daemon", "dbus-send", "bwrap", "xdg-dbus-proxy"]),
            try Userland.ready(.debian12, ["sway", "wvkbd-mobintl", "python3"])
        else { return }
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let keyboard = try sway.startWvkbd()
        defer { keyboard.stop() }
        let other = ToplevelOwnershipTests.second
        let otherApp = try sway.launchGTK(NamedWindowApp.script, name: other + ".py", arguments: [other])
        defer { otherApp.stop() }
        try Wait.require("\(other) to be active", timeout: 15) { otherApp.log.split(separator: "\n").last == "active" }

        let directory = sway.runtime.path
        let bus = try SessionBus(directory: directory, home: sway.runtime.home)
        defer { bus.stop() }
        let env = sway.clientEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        let service = try Kbwatch.start(["--serve", "--stay"], environment: env)
        defer { service.stop() }
        try bus.waitForName("org.keyboardadapter.Watcher")
        let info = try sway.runtime.write("flatpak-info", "[Application]\nname=\(Self.appID)\n")
        let proxySocket = directory + "/proxy-bus"
        let proxy = try ChildProcess(
            "bwrap",
            Self.sandboxed(
                info: info, shared: directory,
                ["xdg-dbus-proxy", bus.address, proxySocket, "--filter", "--talk=org.keyboardadapter.Watcher"]),
            directory: directory)
        defer { proxy.stop() }
        try Wait.require("the proxy's socket (\(proxy.log))", timeout: 10) {
            FileManager.default.fileExists(atPath: proxySocket)
        }
        let script = try sway.runtime.write("sandboxed-chat.py", Self.waylandApp)
        let app = try ChildProcess(
            "bwrap",
            Self.sandboxed(
                info: info, shared: directory,
                ["/usr/bin/python3", script, "unix:path=" + proxySocket, Self.appID, other]),
            environment: [
                "XDG_RUNTIME_DIR": sway.runtime.xdg, "WAYLAND_DISPLAY": sway.socket, "GDK_BACKEND": "wayland",
                "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory", "HOME": sway.runtime.home, "DISPLAY": nil,
                "DBUS_SESSION_BUS_ADDRESS": nil,
            ],
            directory: directory)
        defer { app.stop() }
        try Wait.require("the sandboxed app's window to be active (\(app.log))", timeout: 20) {
            app.log.split(separator: "\n").last == "active"
        }

        // Its own window focused, then the app it named, then its own again.
        func cycle(_ expected: String, _ count: Int) throws {
            Thread.sleep(forTimeInterval: 0.3)
            keyboard.signal(SIGUSR2)
            try Wait.require("didShow \(count) (\(app.log))", timeout: 15) {
                app.log.components(separatedBy: "didShow").count > count
            }
            keyboard.signal(SIGUSR1)
            try Wait.require("didHide \(count) (\(app.log))", timeout: 15) {
                app.log.components(separatedBy: "didHide").count > count
            }
            let events = app.log.split(separator: "\n").filter { $0.hasPrefix("willShow") || $0.hasPrefix("didShow") }
            #expect(events.suffix(2) == ["willShow \(expected)", "didShow \(expected)"], "\(app.log)")
        }
        try cycle("True", 1)
        _ = try sway.message(["[app_id=\"\(other)\"] focus"])
        try Wait.require("\(other) to be active", timeout: 10) { otherApp.log.split(separator: "\n").last == "active" }
        try cycle("False", 2)
        _ = try sway.message(["[app_id=\"\(Self.appID)\"] focus"])
        try Wait.require("the app to be active again", timeout: 10) { app.log.split(separator: "\n").last == "active" }
        try cycle("True", 3)
    }
}
