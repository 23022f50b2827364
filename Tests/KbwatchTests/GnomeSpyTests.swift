import Foundation
import TestSupport
import Testing

extension GnomeTests {
    /// An app run as Flatpak runs it (a bubblewrap sandbox with its `/.flatpak-info`, its bus
    /// through xdg-dbus-proxy allowed to own `$APP_ID` and `$APP_ID.*` and to talk to the shell)
    /// that owns its app id as a name and prints every `Focus` addressed to it; once the file
    /// `argv[3]` appears it asks the extension for its state and to hide the keyboard, and prints
    /// what it was answered.
    static let focusSpy = #"""
        import sys
        from gi.repository import Gio, GLib

        SHELL, PATH, IFACE = "org.gnome.Shell", "/org/keyboardadapter/GnomeShell", "org.keyboardadapter.GnomeShell1"
        bus = Gio.DBusConnection.new_for_address_sync(
            sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

        def heard(connection, sender, path, interface, member, parameters):
            print("Focus", parameters.unpack(), flush=True)

        bus.signal_subscribe(None, IFACE, "Focus", PATH, None, Gio.DBusSignalFlags.NONE, heard)
        owned = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                              GLib.Variant("(su)", (sys.argv[2], 4)), GLib.VariantType("(u)"),
                              Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        print("owned", sys.argv[2], owned, flush=True)

        def ask():
            try:
                state = bus.call_sync(SHELL, PATH, IFACE, "GetState", None, None, Gio.DBusCallFlags.NONE, 5000, None)
                print("GetState focus", state.unpack()[3], flush=True)
            except GLib.Error as error:
                print("GetState", Gio.DBusError.get_remote_error(error), flush=True)
            try:
                bus.call_sync(SHELL, PATH, IFACE, "Hide", None, None, Gio.DBusCallFlags.NONE, 5000, None)
                print("Hide ok", flush=True)
            except GLib.Error as error:
                print("Hide", Gio.DBusError.get_remote_error(error), flush=True)

        trigger = Gio.File.new_for_path(sys.argv[3])
        monitor = trigger.get_parent().monitor_directory(Gio.FileMonitorFlags.NONE, None)

        def changed(monitor, file, other, event):
            if file.equal(trigger) and event == Gio.FileMonitorEvent.CREATED:
                ask()

        monitor.connect("changed", changed)
        print("listening", flush=True)
        GLib.MainLoop().run()
        """#

    @Test(
        "a Flatpak app with the id org.keyboardadapter.Watcher.Spy hears no Focus, reads no focus and cannot hide the keyboard; a trusted watcher still hears it"
    )
    func focusSpy() throws {
        let stack = Stack.debian12
        guard try Self.ready(stack), try Programs.ready(["bwrap", "xdg-dbus-proxy"]) else { return }
        let session = try Session(stack: stack)
        let gnome = session.gnome
        defer { gnome.stop() }
        let runtime = gnome.runtime
        let entryPID = try gnome.windowPID(of: session.entry)
        // The host's watcher, trusted: it hears the focus, so the entry is its own.
        let watcher = try gnome.watch(["--json", "--pid", String(entryPID)])
        defer { watcher.stop() }
        let script = try runtime.write("focus-spy.py", Self.focusSpy)

        /// A spy with app id `appID` behind a proxy of its own; the file `trigger` makes it ask.
        func spy(_ appID: String) throws -> (proxy: WatchedProcess, app: ChildProcess, trigger: String) {
            let info = try runtime.write("flatpak-info-" + appID, "[Application]\nname=\(appID)\n")
            let socket = runtime.xdg + "/proxy-" + appID
            let proxy = try gnome.watchCommand(
                ["bwrap"]
                    + SandboxedSubscriberTests.sandboxed(
                        info: info, shared: runtime.path,
                        [
                            "xdg-dbus-proxy", gnome.busAddress, socket, "--filter", "--own=\(appID)",
                            "--own=\(appID).*", "--talk=org.gnome.Shell",
                        ]))
            try Wait.require("the proxy's socket (\(proxy.errors))", timeout: 10) {
                FileManager.default.fileExists(atPath: socket)
            }
            let trigger = runtime.path + "/ask-" + appID
            let (program, arguments) = TestUser.command(
                ["/usr/bin/env", "-i"] + gnome.environment
                    + ["bwrap"]
                    + SandboxedSubscriberTests.sandboxed(
                        info: info, shared: runtime.path,
                        ["/usr/bin/python3", script, "unix:path=" + socket, appID, trigger]),
                as: gnome.user)
            let app = try ChildProcess(program, arguments, directory: runtime.path)
            try Wait.require("\(appID) to listen", timeout: 15) { app.log.contains("listening") }
            return (proxy, app, trigger)
        }
        let watcherSpy = try spy("org.keyboardadapter.Watcher.Spy")
        defer {
            watcherSpy.app.stop()
            watcherSpy.proxy.stop()
        }
        let exampleSpy = try spy("org.example.Spy")
        defer {
            exampleSpy.app.stop()
            exampleSpy.proxy.stop()
        }
        #expect(watcherSpy.app.log.contains("owned org.keyboardadapter.Watcher.Spy 1"), "\(watcherSpy.app.log)")

        // Shown and hidden twice with the entry focused.
        for round in 1...2 {
            try gnome.focus(session.entry)
            Thread.sleep(forTimeInterval: 0.3)
            let shown = try gnome.kbwatch(["--show"])
            #expect(shown.status == 0, "\(shown.output)")
            try Wait.require("the watcher's didShow \(round)", timeout: 15) {
                watcher.lines.all.filter { $0.text.contains(#""event":"didShow""#) }.count >= round
            }
            let hidden = try gnome.kbwatch(["--hide"])
            #expect(hidden.status == 0, "\(hidden.output)")
            try Wait.require("the watcher's didHide \(round)", timeout: 15) {
                watcher.lines.all.filter { $0.text.contains(#""event":"didHide""#) }.count >= round
            }
        }
        let shows = watcher.lines.all.filter { $0.text.contains(#""event":"didShow""#) }.map(\.text)
        #expect(shows.allSatisfy { $0.contains(#""local":true"#) }, "\(shows)")

        // Asked while the keyboard is up.
        try gnome.focus(session.entry)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try gnome.kbwatch(["--show"]).status == 0)
        try Wait.require("the watcher's third didShow", timeout: 15) {
            watcher.lines.all.filter { $0.text.contains(#""event":"didShow""#) }.count >= 3
        }
        for spy in [watcherSpy, exampleSpy] {
            #expect(FileManager.default.createFile(atPath: spy.trigger, contents: Data()))
            try Wait.require("the spy's answers (\(spy.app.log))", timeout: 15) { spy.app.log.contains("Hide ") }
        }
        for (name, spy) in [("org.keyboardadapter.Watcher.Spy", watcherSpy), ("org.example.Spy", exampleSpy)] {
            let log = spy.app.log
            let heard = log.split(separator: "\n").filter { $0.hasPrefix("Focus") }
            print(
                "\(name): heard \(heard.count) Focus signals:", heard.prefix(2), "|",
                log.split(separator: "\n").filter { $0.hasPrefix("GetState") || $0.hasPrefix("Hide") })
            #expect(heard.isEmpty, "\(name): \(log)")
            #expect(log.contains("GetState focus (0, [])"), "\(name): \(log)")
            #expect(log.contains("Hide org.freedesktop.DBus.Error.AccessDenied"), "\(name): \(log)")
        }
    }
}
