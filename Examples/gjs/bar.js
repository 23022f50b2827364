// bar.js: a GTK 4 window from GJS whose bar stays on the on-screen keyboard's top edge.
//
// libkeyboard-adapter's Watcher subscribes to the session service (`kbwatch --serve`, started by
// the bus when installed); its GTK 4 companion's Coverage says how much of the window's bottom the
// keyboard covers, following the window's moves (X11; on Wayland no client knows where its window
// is, and the coverage says so: the bar then stays at the bottom).
//
//     gjs Examples/gjs/bar.js
//
// It prints `subscribed` and `service gone` as the service comes and goes, `willShow NAME` and
// the other events, `window 0x...` (X11), `content DX,DY WxH` (its content in its X window), and
// `inset N` (or `inset unknown`) whenever the bar moves. Needs gjs, gir1.2-gtk-4.0 and
// libkeyboard-adapter's typelibs (gir1.2-keyboardadapter-1, gir1.2-keyboardadaptergtk4-1).
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.Gdk = '4.0';
imports.gi.versions.GdkX11 = '4.0';
imports.gi.versions.KeyboardAdapter = '1';
imports.gi.versions.KeyboardAdapterGtk4 = '1';
const {Gdk, GLib, Gtk, KeyboardAdapter, KeyboardAdapterGtk4} = imports.gi;
try {
    imports.gi.GdkX11; // X11 surfaces as GdkX11.X11Surface, with their ids
} catch (e) {} // a GTK without X11: Wayland only

Gtk.init();
const css = new Gtk.CssProvider();
css.load_from_data('.bar { background-color: #3465a4; }');
Gtk.StyleContext.add_provider_for_display(Gdk.Display.get_default(), css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION);

const window = new Gtk.Window({title: 'bar', default_width: 800, default_height: 600});
const bar = new Gtk.Box({css_classes: ['bar']});
bar.append(new Gtk.Entry({hexpand: true, margin_top: 6, margin_bottom: 6, margin_start: 6, margin_end: 6}));
const box = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL});
box.append(new Gtk.Label({label: 'Type below: the bar stays above the keyboard.', vexpand: true}));
box.append(bar);
window.set_child(box);

const watcher = new KeyboardAdapter.Watcher();
const coverage = KeyboardAdapterGtk4.Coverage.new(watcher, window);
watcher.connect('notify::service-available', () => print(watcher.service_available ? 'subscribed' : 'service gone'));
for (const signal of ['will-show', 'did-show', 'will-hide', 'did-hide', 'will-change-frame', 'did-change-frame']) {
    const name = signal.replace(/-(.)/g, (_, letter) => letter.toUpperCase());
    watcher.connect(signal, (_, update) => print(`${name} ${update.keyboard_name}`));
}
const lift = () => {
    bar.margin_bottom = coverage.bottom_inset;
    print(coverage.known ? `inset ${coverage.bottom_inset}` : 'inset unknown');
};
coverage.connect('notify::bottom-inset', lift);
coverage.connect('notify::known', lift);

let content = '';
window.connect('map', () => {
    const surface = window.get_surface();
    if (surface.get_xid) {
        watcher.set_window_ids([surface.get_xid()]); // its own window is the app's, for `local`
        print(`window 0x${surface.get_xid().toString(16)}`);
    }
    surface.connect('layout', () => {
        const [dx, dy] = window.get_surface_transform(); // the shadow GTK draws around its content
        const line = `content ${dx},${dy} ${window.get_width()}x${window.get_height()}`;
        if (line !== content)
            print(content = line);
    });
});
const loop = new GLib.MainLoop(null, false);
window.connect('close-request', () => loop.quit());
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, () => loop.quit()); // SIGTERM
window.present();
loop.run();
