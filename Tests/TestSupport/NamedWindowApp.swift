/// A GTK 3 window whose Wayland app id is the program's first argument: GTK 3 names a window
/// after the program (`GLib.set_prgname`) when no GApplication does. It prints `active` each time
/// its window becomes the active one and `inactive` when it stops being. Run it with
/// `/usr/bin/python3` (python3-gi, gir1.2-gtk-3.0) and `GDK_BACKEND=wayland`.
public enum NamedWindowApp {
    /// The program's source.
    public static let script = """
        import signal
        import sys
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gtk, GLib

        GLib.set_prgname(sys.argv[1])
        window = Gtk.Window(title=sys.argv[1])
        window.add(Gtk.Entry())

        def activated(window, _):
            print("active" if window.is_active() else "inactive", flush=True)

        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
        window.connect("notify::is-active", activated)
        window.connect("destroy", Gtk.main_quit)
        window.show_all()
        Gtk.main()

        """
}
