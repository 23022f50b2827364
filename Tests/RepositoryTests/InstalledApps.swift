import Foundation
import TestSupport
import Testing

/// The apps an installed system runs on the project's packages alone, as an app developer writes
/// them from the documentation: a Python GTK 4 app, a GJS script and a C program, each a window
/// with an entry that prints `will-show X,Y WxH local true|false` and `did-hide ... local ...` from
/// a `KeyboardAdapter.Watcher` that names its app id (and on X11 its window), and a QML file run by
/// Qt's `qml` tool that prints `keyboardRectangle X,Y WxH` from `import KeyboardAdapter`. Each is
/// given its app id (also its window's title) as its argument.
enum InstalledApps {
    static let python = #"""
        import sys
        import gi
        gi.require_version("Gtk", "4.0")
        gi.require_version("KeyboardAdapter", "1")
        from gi.repository import Gtk, KeyboardAdapter

        app_id = sys.argv[1]
        watcher = KeyboardAdapter.Watcher(app_ids=[app_id])
        def heard(watcher, update, name):
            r = update.props.end_frame
            print(name, f"{r.x},{r.y} {r.width}x{r.height}", "local", update.props.local.value_nick, flush=True)
        for name in ["will-show", "did-hide"]:
            watcher.connect(name, heard, name)
        watcher.connect("notify::service-available", lambda w, _: print("available", w.props.service_available, flush=True))
        def activate(app):
            window = Gtk.ApplicationWindow(application=app, title=app_id, child=Gtk.Entry())
            window.present()
            if hasattr(window.get_surface(), "get_xid"):  # X11: its window is the app's
                watcher.set_window_ids([window.get_surface().get_xid()])
        app = Gtk.Application(application_id=app_id)
        app.connect("activate", activate)
        app.run([])
        """#

    static let gjs = #"""
        imports.gi.versions.Gtk = '4.0';
        imports.gi.versions.GdkX11 = '4.0';
        imports.gi.versions.KeyboardAdapter = '1';
        const {Gtk, KeyboardAdapter} = imports.gi;
        imports.gi.GdkX11; // X11 surfaces as GdkX11.X11Surface, with their ids

        const appId = ARGV[0];
        const watcher = new KeyboardAdapter.Watcher({app_ids: [appId]});
        for (const name of ['will-show', 'did-hide']) {
            watcher.connect(name, (_watcher, update) => {
                const r = update.end_frame;
                const local = update.local === KeyboardAdapter.Local.TRUE ? 'true'
                    : update.local === KeyboardAdapter.Local.FALSE ? 'false' : 'unknown';
                print(name, `${r.x},${r.y} ${r.width}x${r.height}`, 'local', local);
            });
        }
        watcher.connect('notify::service-available', () => print('available', watcher.service_available ? 'True' : 'False'));
        const app = new Gtk.Application({application_id: appId});
        app.connect('activate', () => {
            const window = new Gtk.ApplicationWindow({application: app, title: appId, child: new Gtk.Entry()});
            window.present();
            if (window.get_surface().get_xid) // X11: its window is the app's
                watcher.set_window_ids([window.get_surface().get_xid()]);
        });
        app.run([]);
        """#

    static let c = #"""
        #include <gtk/gtk.h>
        #include <keyboard-adapter.h>
        #ifdef GDK_WINDOWING_X11
        #include <gdk/x11/gdkx.h>
        #endif

        static void heard (KaWatcher *watcher, KaUpdate *update, gpointer name)
        {
          const KaRect *r = ka_update_get_end_frame (update);
          KaLocal local = ka_update_get_local (update);
          g_print ("%s %d,%d %dx%d local %s\n", (const char *) name, r->x, r->y, r->width, r->height,
                   local == KA_LOCAL_TRUE ? "true" : local == KA_LOCAL_FALSE ? "false" : "unknown");
        }

        static void available (KaWatcher *watcher, GParamSpec *pspec, gpointer data)
        {
          g_print ("available %s\n", ka_watcher_get_service_available (watcher) ? "True" : "False");
        }

        static void activate (GtkApplication *app, KaWatcher *watcher)
        {
          GtkWidget *window = gtk_application_window_new (app);
          gtk_window_set_title (GTK_WINDOW (window), g_application_get_application_id (G_APPLICATION (app)));
          gtk_window_set_child (GTK_WINDOW (window), gtk_entry_new ());
          gtk_window_present (GTK_WINDOW (window));
        #ifdef GDK_WINDOWING_X11
          GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
          if (GDK_IS_X11_SURFACE (surface)) /* X11: its window is the app's */
            {
              guint64 xid = gdk_x11_surface_get_xid (surface);
              ka_watcher_set_window_ids (watcher, &xid, 1);
            }
        #endif
        }

        int main (int argc, char **argv)
        {
          const char *app_ids[] = { argv[1], NULL };
          KaWatcher *watcher = ka_watcher_new ();
          g_object_set (watcher, "app-ids", app_ids, NULL);
          g_signal_connect (watcher, "will-show", G_CALLBACK (heard), "will-show");
          g_signal_connect (watcher, "did-hide", G_CALLBACK (heard), "did-hide");
          g_signal_connect (watcher, "notify::service-available", G_CALLBACK (available), NULL);
          GtkApplication *app = gtk_application_new (argv[1], G_APPLICATION_DEFAULT_FLAGS);
          g_signal_connect (app, "activate", G_CALLBACK (activate), watcher);
          return g_application_run (G_APPLICATION (app), 1, argv);
        }
        """#

    static let qml = #"""
        import QtQuick
        import KeyboardAdapter

        Window {
            // Full screen: its rectangle is in its window's coordinates, the screen's then.
            visible: true
            visibility: Window.FullScreen
            title: "rectangle"
            Connections {
                target: KeyboardAdapter
                function onSubscribed() { console.log("subscribed") }
                function onKeyboardRectangleChanged() {
                    const r = KeyboardAdapter.keyboardRectangle
                    console.log("keyboardRectangle " + r.x + "," + r.y + " " + r.width + "x" + r.height)
                }
            }
        }
        """#

    /// The GObject apps: their names, and the command that runs each (in `directory`).
    static func commands(in directory: String) -> [(name: String, command: [String])] {
        [
            ("Python", ["/usr/bin/python3", directory + "/app.py"]),
            ("GJS", ["/usr/bin/gjs", directory + "/app.js"]),
            ("C", [directory + "/app"]),
        ]
    }

    /// Writes the four into `directory`, and builds the C one with gcc and pkg-config as `run`
    /// runs a shell script (on the installed system, so with its headers and libraries).
    static func write(into directory: String, build run: (String) throws -> String) throws {
        for (name, text) in [("app.py", python), ("app.js", gjs), ("app.c", c), ("rectangle.qml", qml)] {
            try (text + "\n").write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            chmod(directory + "/" + name, 0o644)
        }
        // GTK 4.18 deprecates its X11 backend's calls (its X11 support stays).
        _ = try run(
            "cd '\(directory)' && gcc -Wall -Werror -Wno-deprecated-declarations -o app app.c "
                + "$(pkg-config --cflags --libs keyboard-adapter-1 gtk4)")
    }

    /// An app's lines of one kind (`will-show`, `did-hide`, `available`, `keyboardRectangle`).
    static func lines(_ log: String, _ prefix: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix(prefix + " ") || $0.hasPrefix("qml: " + prefix + " ")
        }
        .map { $0.hasPrefix("qml: ") ? String($0.dropFirst(5)) : $0 }
    }
}
