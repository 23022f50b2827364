import Foundation
import TestSupport
import Testing

extension GnomeTests {
    /// A maximized GTK 3 window whose entry is at its bottom, named by its first argument (its
    /// Wayland app id), its second the entry's bottom margin. With `--in-place` it asks the session service, on a connection of its own,
    /// to leave its windows in place, prints `left in place` (or the service's error), and on
    /// SIGUSR1 closes that connection (leaves the bus) and prints `left the bus`.
    static let bottomEntryScript = """
        import signal
        import sys
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gio, GLib, Gtk

        GLib.set_prgname(sys.argv[1])
        window = Gtk.Window(title=sys.argv[1])
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        box.pack_start(Gtk.Label(label="above"), True, True, 0)
        box.pack_start(Gtk.Entry(margin_bottom=int(sys.argv[2])), False, False, 0)
        window.add(box)
        window.maximize()
        window.connect("destroy", Gtk.main_quit)
        window.show_all()
        if "--in-place" in sys.argv:
            address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
            flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
            bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
            try:
                bus.call_sync("org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher",
                              "org.keyboardadapter.Watcher2", "LeaveWindowsInPlace", GLib.Variant("(b)", (True,)),
                              None, Gio.DBusCallFlags.NONE, 5000, None)
                print("left in place", flush=True)
            except GLib.Error as error:
                print("refused:", error.message, flush=True)

            def leave():
                bus.close_sync(None)
                print("left the bus", flush=True)
                return False

            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, leave)
        Gtk.main()

        """

    /// GNOME Shell 43 (the legacy flavour of the extension) with everything on the host: the
    /// session service and GTK 3 apps whose entry sits at the bottom of a maximized window.
    @Test(
        "LeaveWindowsInPlace: that app's window stays while another's is slid; it ends when the app leaves the bus; a caller in another mount namespace is refused",
        arguments: [Stack.debian12])
    func leaveInPlace(stack: Stack) throws {
        guard try Self.ready(stack), try Programs.ready(["bwrap"]) else { return }
        let session = try Session(stack: stack)
        let gnome = session.gnome
        defer { gnome.stop() }
        let service = try gnome.watch(["--serve", "--stay"])
        defer { service.stop() }
        // The shell decides whether to move a window when the text cursor's rectangle changes
        // (its focus tracker ignores a rectangle equal to the last one): the two entries sit at
        // different heights, so each click brings a new one.
        let moved = try gnome.launchGTK(Self.bottomEntryScript, name: "bottom.py", arguments: ["kbbottom", "0"])
        let kept = try gnome.launchGTK(
            Self.bottomEntryScript, name: "bottom.py", arguments: ["kbinplace", "12", "--in-place"])
        try Wait.require("the service to take the request (\(kept.log))", timeout: 20) {
            kept.log.contains("left in place") || kept.log.contains("refused")
        }
        #expect(kept.log.contains("left in place"), "\(kept.log)")

        /// Opens the keyboard with a click in `app`'s entry, and says where the shell then shows its
        /// window (its actor's `y` once still), then closes the keyboard.
        func shownY(_ app: ChildProcess) throws -> Int? {
            let window = HeadlessGnomeShell.windowOf(app.pid)
            try Wait.require("\(app.pid)'s window maximized", timeout: 10) {
                (try? gnome.eval("\(window).get_frame_rect().y")) == "32"
            }
            try gnome.focus(app)
            try gnome.click(app, y: 0.97)
            try Wait.require("the keyboard to open", timeout: 10) { gnome.keyboardVisible == true }
            var last = ""
            try Wait.require("the window to stop moving", timeout: 10) {
                Thread.sleep(forTimeInterval: 0.2)
                let now = (try? gnome.eval("\(window).get_compositor_private().y")) ?? ""
                defer { last = now }
                return now == last && !now.isEmpty
            }
            try session.close()
            try Wait.require("the window back", timeout: 10) {
                (try? gnome.eval("\(window).get_compositor_private().y")) == "32"
            }
            return Double(last).map { Int($0.rounded()) }
        }
        // Up by the keyboard's height, a third of the monitor's.
        let slid = Int((32 - 800.0 / 3).rounded())
        let first = try shownY(moved)
        #expect(first == slid, "another app's window is slid up by the keyboard's height: \(first ?? 0)")
        let left = try shownY(kept)
        #expect(left == 32, "the app that asked is left in place: \(left ?? 0)")
        let again = try shownY(moved)
        #expect(again == slid, "and another app's still is: \(again ?? 0)")

        // Its connection gone, the service withdraws the request: the shell moves its window again.
        kill(kept.pid, SIGUSR1)
        try Wait.require("the app to leave the bus (\(kept.log))", timeout: 10) { kept.log.contains("left the bus") }
        let after = try shownY(kept)
        #expect(after == slid, "slid again once the app left the bus: \(after ?? 0)")

        // A caller in another mount namespace (a sandbox the service cannot name) is refused.
        let sandboxed = try gnome.run([
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", "/tmp", "/tmp", "--",
            "/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", "gdbus", "call", "--session", "--dest",
            "org.keyboardadapter.Watcher", "--object-path", "/org/keyboardadapter/Watcher", "--method",
            "org.keyboardadapter.Watcher2.LeaveWindowsInPlace", "true",
        ])
        #expect(
            sandboxed.status != 0 && sandboxed.output.contains("org.freedesktop.DBus.Error.AccessDenied"),
            "\(sandboxed.output)")
        #expect(service.isRunning, "\(service.errors)")
    }
}
