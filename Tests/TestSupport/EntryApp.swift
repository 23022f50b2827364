/// A GTK 3 window with a button (focused at start) and an entry: SIGUSR1 gives the entry the
/// focus, SIGUSR2 the button, and it prints `active` once its window is. Headless seats have no
/// pointer, so focus moves inside the app; the compositor activates the new window itself. A first
/// argument names the program, and so the window's Wayland app id. Run it with `/usr/bin/python3`
/// (python3-gi, gir1.2-gtk-3.0) and `GDK_BACKEND=wayland`.
public enum EntryApp {
    /// The program's source.
    public static let script = """
        import signal
        import sys
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gtk, GLib

        if len(sys.argv) > 1:
            GLib.set_prgname(sys.argv[1])
        window = Gtk.Window(title="entry")
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        button = Gtk.Button(label="no text here")
        entry = Gtk.Entry()
        box.pack_start(button, False, False, 0)
        box.pack_start(entry, False, False, 0)
        window.add(box)

        def focus(widget):
            widget.grab_focus()
            return GLib.SOURCE_CONTINUE

        def activated(window, _):
            if window.is_active():
                print("active", flush=True)

        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, focus, entry)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, focus, button)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
        window.connect("notify::is-active", activated)
        window.connect("destroy", Gtk.main_quit)
        button.grab_focus()
        window.show_all()
        Gtk.main()

        """
}
