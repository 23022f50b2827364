// watch-client.js: what a KaWatcher hears, from GJS, one line each: the lines of
// watch-client.c (see there).
//
//     gjs watch-client.js [--window-id HEX] [--progress]
imports.gi.versions.KeyboardAdapter = '1';
const {GLib, KeyboardAdapter} = imports.gi;

let window = 0, progress = false;
for (let i = 0; i < ARGV.length; i++) {
    if (ARGV[i] === '--window-id' && i + 1 < ARGV.length) {
        window = parseInt(ARGV[++i], 16);
    } else if (ARGV[i] === '--progress') {
        progress = true;
    } else {
        printerr('usage: watch-client.js [--window-id HEX] [--progress]');
        imports.system.exit(2);
    }
}

// An enumeration's nick (KeyboardAdapter.Local.TRUE is "true").
function nick(enumeration, value) {
    const name = Object.keys(enumeration).find(key => enumeration[key] === value);
    return name === undefined ? '?' : name.toLowerCase().replace(/_/g, '-');
}

function errorLine(what, error) {
    if (error.matches(KeyboardAdapter.error_quark(), error.code))
        return `${what} ${nick(KeyboardAdapter.Error, error.code)}: ${error.message}`;
    return `${what} ${error.domain} ${error.code}: ${error.message}`;
}

const rect = r => r ? `${r.x},${r.y} ${r.width}x${r.height}` : '?';

function answered(what, finish) {
    return (watcher, result) => {
        try {
            finish.call(watcher, result);
            print(`${what} ok`);
        } catch (error) {
            print(errorLine(`${what} error`, error));
        }
    };
}

const watcher = new KeyboardAdapter.Watcher();
if (window)
    watcher.set_window_ids([window]);
let askedShow = false;

for (const signal of ['will-show', 'did-show', 'will-hide', 'did-hide', 'will-change-frame', 'did-change-frame']) {
    watcher.connect(signal, (self, update) => {
        print(`${signal} ${rect(update.end_frame)} local=${nick(KeyboardAdapter.Local, update.local)} ` +
              `name=${update.keyboard_name}`);
    });
}
watcher.connect('notify::service-available', () => {
    print(`available ${watcher.service_available}`);
    if (watcher.service_available && !askedShow) {
        askedShow = true;
        watcher.show_async(null, answered('show', watcher.show_finish));
    }
});
watcher.connect('notify::error', () => {
    if (watcher.error)
        print(errorLine('error', watcher.error));
});
watcher.connect('notify::animating', () => print(`animating ${watcher.animating}`));
if (progress) {
    watcher.progress_frames = true;
    watcher.connect('progress', (self, frame) => {
        print(`progress ${rect(frame.frame)} local=${nick(KeyboardAdapter.Local, frame.local)}`);
    });
}
watcher.connect('notify::visible', () => {
    print(`visible ${watcher.visible} ${rect(watcher.keyboard_rectangle)}`);
});
// SIGUSR1 (10 on Linux): ka_watcher_hide_async().
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 10, () => {
    watcher.hide_async(null, answered('hide', watcher.hide_finish));
    return GLib.SOURCE_CONTINUE;
});
new GLib.MainLoop(null, false).run();
