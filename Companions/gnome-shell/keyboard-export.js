// KeyboardAdapter's object inside GNOME Shell, shared by both flavours of the extension: the
// flavour's own extension.js binds Gio, GLib, Shell, Main and Config, and this text follows it in
// the installed extension.js. GNOME Shell draws its on-screen keyboard itself and tells no other
// program where it is; this object, exported on the shell's own session-bus connection (so it
// answers under org.gnome.Shell), says whether the keyboard is up, where, every step of its
// slide, and which window had the focus when it changed (to watchers, with where the shell shows
// that window: the shell moves the focused window up by the keyboard's height when the keyboard
// would cover its text cursor, and tells the app nothing); it shows and hides the keyboard; and
// it leaves in place the windows of the processes a trusted caller names (LeaveInPlace), for apps
// that make room for the keyboard themselves.
// Its interface is org.keyboardadapter.GnomeShell1.xml, installed beside it. It runs nothing a
// caller sends, and it is quiet while the keyboard is still.
//
// Which app the user types into is no stranger's business, as GNOME keeps its own Introspect
// interface to allowed callers. The focus goes, addressed to each, only to watchers (connections
// that own a name in org.keyboardadapter.Watcher's namespace) that the bus proves trusted: their
// credentials name the shell's own user and a process outside any sandbox (no mount at
// /.flatpak-info, no Snap cgroup). A name alone proves nothing: Flatpak lets an app own names under its
// own app id, which it may choose under the watchers'. Only trusted callers may show and hide
// the keyboard, and only they read the focus in GetState.

const RELEASE = '1.0.0';
const REVISION = 4;
const OBJECT_PATH = '/org/keyboardadapter/GnomeShell';
const INTERFACE_FILE = 'org.keyboardadapter.GnomeShell1.xml';
const DISABLED_ERROR = 'org.keyboardadapter.GnomeShell1.Disabled';
const FAILED_ERROR = 'org.keyboardadapter.GnomeShell1.Failed';
const ACCESS_DENIED_ERROR = 'org.freedesktop.DBus.Error.AccessDenied';
const WATCHER_NAMESPACE = 'org.keyboardadapter.Watcher';
const MOST_APP_IDS = 8;
// The most callers whose trust is remembered (unique names are never reused: a verdict holds
// for as long as its connection).
const MOST_JUDGED = 512;
// The most bytes of a caller's mount table or cgroup read.
const MOST_PROC_BYTES = 1 << 20;
const LONGEST_APP_ID = 256;
// The most processes one caller may have left in place.
const MOST_IN_PLACE = 64;

class KeyboardExport {
    constructor(extensionPath) {
        const [, bytes] = GLib.file_get_contents(GLib.build_filenamev([extensionPath, INTERFACE_FILE]));
        this._object = Gio.DBusExportedObject.wrapJSObject(new TextDecoder().decode(bytes), this);
        this._actor = null;
        this._actorSignals = [];
        this._visible = false;
        this._enabled = false;
        this._lastFrame = null;
        this._focus = [0, []];
        this._judged = new Map();
        // The processes whose windows the shell leaves in place, by the caller that asked, and
        // the subscription that forgets a caller's when it leaves the bus.
        this._inPlace = new Map();
        this._shown = [0, 0, 0, 0];
        this._rebindSource = 0;
        this._visibilitySignal = Main.keyboard.connect('visibility-changed', () => {
            this._rebind();
            this._announce();
        });
        // The shell recreates its keyboard's actor when the keyboard is enabled or disabled (the
        // setting, or a touch screen's touch mode): look again after each of those.
        this._settings = new Gio.Settings({schema_id: 'org.gnome.desktop.a11y.applications'});
        this._settingsSignal = this._settings.connect('changed', () => this._rebindLater());
        this._deviceSignal = global.backend.connect('last-device-changed', () => this._rebindLater());
        this._rebind();
        this._visible = Boolean(Main.keyboard.visible);
        this._watchWatchers();
        this._object.export(Gio.DBus.session, OBJECT_PATH);
        this._object.emit_signal('Started', null);
    }

    destroy() {
        this._object.emit_signal('Stopping', null);
        this._object.flush();
        this._object.unexport();
        Gio.DBus.session.signal_unsubscribe(this._watchersSignal);
        for (const {signal} of this._inPlace.values())
            Gio.DBus.session.signal_unsubscribe(signal);
        this._inPlace.clear();
        Main.keyboard.disconnect(this._visibilitySignal);
        this._settings.disconnect(this._settingsSignal);
        global.backend.disconnect(this._deviceSignal);
        if (this._rebindSource)
            GLib.source_remove(this._rebindSource);
        this._rebindSource = 0;
        this._unbindActor();
    }

    get Revision() {
        return REVISION;
    }

    get Release() {
        return RELEASE;
    }

    get ShellVersion() {
        return Config.PACKAGE_VERSION;
    }

    get Enabled() {
        return this._actor !== null;
    }

    GetStateAsync(_parameters, invocation) {
        this._judge(invocation.get_sender(), trusted => {
            invocation.return_value(new GLib.Variant('(b(dddd)(uiiiid)(uas))', [
                this._visible, this._frame() ?? [0, 0, 0, 0], this._monitor(), trusted ? this._focus : [0, []],
            ]));
        });
    }

    ShowAsync(_parameters, invocation) {
        this._judge(invocation.get_sender(), trusted => {
            if (!trusted)
                return this._deny(invocation);
            if (!Main.keyboard.keyboardActor)
                return this._refuse(invocation);
            return this._answer(invocation, () => Main.keyboard.open(Main.layoutManager.focusIndex));
        });
    }

    HideAsync(_parameters, invocation) {
        this._judge(invocation.get_sender(), trusted => {
            if (!trusted)
                return this._deny(invocation);
            if (!Main.keyboard.keyboardActor)
                return this._refuse(invocation);
            return this._answer(invocation, () => Main.keyboard.close());
        });
    }

    // The windows of these processes are left where they are when the keyboard comes up: the
    // calling connection's list, replacing what it asked before (an empty list ends its request),
    // kept until it asks again or leaves the bus. Only trusted callers may ask (the session
    // service, which asks for apps whose process the bus proves); it takes effect at the next
    // time the shell would move a window.
    LeaveInPlaceAsync(parameters, invocation) {
        const sender = invocation.get_sender();
        const [pids] = parameters;
        this._judge(sender, trusted => {
            if (!trusted) {
                return invocation.return_dbus_error(ACCESS_DENIED_ERROR,
                    'only a process of the shell\'s user outside any sandbox may leave windows in place');
            }
            if (!Array.isArray(pids) || pids.length > MOST_IN_PLACE) {
                return invocation.return_dbus_error('org.freedesktop.DBus.Error.InvalidArgs',
                    `at most ${MOST_IN_PLACE} processes`);
            }
            const wanted = new Set(pids.filter(pid => Number.isInteger(pid) && pid > 0));
            const held = this._inPlace.get(sender);
            if (held && wanted.size === 0) {
                Gio.DBus.session.signal_unsubscribe(held.signal);
                this._inPlace.delete(sender);
            } else if (held) {
                held.pids = wanted;
            } else if (wanted.size > 0 && this._inPlace.size < MOST_JUDGED) {
                const signal = Gio.DBus.session.signal_subscribe('org.freedesktop.DBus', 'org.freedesktop.DBus',
                    'NameOwnerChanged', '/org/freedesktop/DBus', sender, Gio.DBusSignalFlags.NONE,
                    (_connection, _sender, _path, _interface, _member, changed) => {
                        const [, , owner] = changed.deep_unpack();
                        if (owner)
                            return;
                        Gio.DBus.session.signal_unsubscribe(this._inPlace.get(sender)?.signal ?? signal);
                        this._inPlace.delete(sender);
                    });
                this._inPlace.set(sender, {pids: wanted, signal});
            } else if (wanted.size > 0) {
                return invocation.return_dbus_error(FAILED_ERROR, 'too many callers leave windows in place');
            }
            return invocation.return_value(null);
        });
    }

    // Whether the window's process is one a caller asked to leave in place.
    _leftInPlace(window) {
        const pid = window?.get_pid?.() ?? 0;
        if (pid <= 0)
            return false;
        for (const {pids} of this._inPlace.values()) {
            if (pids.has(pid))
                return true;
        }
        return false;
    }

    // Whether the bus proves `sender` trusted (see the head of this file): `then` gets the verdict,
    // at once when it is known, else once the bus has said who the sender is. Anything that cannot
    // be established counts as untrusted.
    _judge(sender, then) {
        if (typeof sender !== 'string' || !sender.startsWith(':'))
            return then(false);
        const known = this._judged.get(sender);
        if (known !== undefined)
            return then(known);
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetConnectionCredentials', new GLib.Variant('(s)', [sender]), new GLib.VariantType('(a{sv})'),
            Gio.DBusCallFlags.NONE, 5000, null, (connection, result) => {
                let trusted = false;
                try {
                    trusted = this._provesTrust(connection.call_finish(result).deep_unpack()[0]);
                } catch (error) {
                    trusted = false;
                }
                if (this._judged.size >= MOST_JUDGED)
                    this._judged.delete(this._judged.keys().next().value);
                this._judged.set(sender, trusted);
                then(trusted);
            });
        return undefined;
    }

    // Credentials that name the shell's user and a process outside any sandbox: none of its mounts
    // is /.flatpak-info (Flatpak binds the app's file there; the mount table is read, not the file,
    // which a FIFO could make wait), and its cgroup is no Snap's. A process gone, or a mount table or
    // cgroup that cannot be read or is larger than MOST_PROC_BYTES, is not trusted.
    _provesTrust(credentials) {
        const uid = credentials.UnixUserID?.unpack();
        const pid = credentials.ProcessID?.unpack();
        if (uid !== new Gio.Credentials().get_unix_user() || !Number.isInteger(pid) || pid <= 0)
            return false;
        try {
            const [, mounts] = GLib.file_get_contents(`/proc/${pid}/mountinfo`);
            const [, cgroup] = GLib.file_get_contents(`/proc/${pid}/cgroup`);
            if (mounts.length === 0 || mounts.length > MOST_PROC_BYTES || cgroup.length > MOST_PROC_BYTES)
                return false;
            const decoder = new TextDecoder();
            const flatpak = decoder.decode(mounts).split('\n').some(line => line.split(' ')[4] === '/.flatpak-info');
            const snap = decoder.decode(cgroup).split('\n').some(line => line.includes('/snap.'));
            return !flatpak && !snap;
        } catch (error) {
            return false;
        }
    }

    // The watchers: the unique names owning a name in the namespace, as the bus says (its
    // NameOwnerChanged comes from the bus alone: GDBus delivers it only from the bus driver),
    // followed from before the names already owned are listed.
    _watchWatchers() {
        this._watchers = new Map();
        this._watchersSignal = Gio.DBus.session.signal_subscribe('org.freedesktop.DBus', 'org.freedesktop.DBus',
            'NameOwnerChanged', '/org/freedesktop/DBus', WATCHER_NAMESPACE, Gio.DBusSignalFlags.MATCH_ARG0_NAMESPACE,
            (_connection, _sender, _path, _interface, _member, parameters) => {
                const [name, , owner] = parameters.deep_unpack();
                this._setWatcher(name, owner);
            });
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'ListNames',
            null, new GLib.VariantType('(as)'), Gio.DBusCallFlags.NONE, -1, null, (connection, result) => {
                let names = [];
                try {
                    [names] = connection.call_finish(result).deep_unpack();
                } catch (error) {
                    return;
                }
                for (const name of names.filter(each => this._inNamespace(each)))
                    this._askOwner(name);
            });
    }

    _askOwner(name) {
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetNameOwner', new GLib.Variant('(s)', [name]), new GLib.VariantType('(s)'), Gio.DBusCallFlags.NONE, -1,
            null, (connection, result) => {
                try {
                    // A change heard meanwhile is newer than this answer.
                    if (!this._watchers.has(name))
                        this._setWatcher(name, connection.call_finish(result).deep_unpack()[0]);
                } catch (error) {
                    // The name went away before the bus was asked.
                }
            });
    }

    _inNamespace(name) {
        return name === WATCHER_NAMESPACE || name.startsWith(`${WATCHER_NAMESPACE}.`);
    }

    // A watcher is judged as soon as it is known, so that its verdict is there when a focus is sent.
    _setWatcher(name, owner) {
        if (!this._inNamespace(name))
            return;
        if (owner) {
            this._watchers.set(name, owner);
            this._judge(owner, () => {});
        } else {
            this._watchers.delete(name);
        }
    }

    _deny(invocation) {
        invocation.return_dbus_error(ACCESS_DENIED_ERROR,
            'only a process of the shell\'s user outside any sandbox may show and hide the keyboard');
    }

    // The shell's own open and close can throw (its first close after start fails without ibus'
    // typing-booster schema): the caller gets the reason, never a call left without a reply.
    _answer(invocation, request) {
        try {
            request();
        } catch (error) {
            return invocation.return_dbus_error(FAILED_ERROR, String(error?.message ?? error).slice(0, 512));
        }
        return invocation.return_value(null);
    }

    _refuse(invocation) {
        invocation.return_dbus_error(DISABLED_ERROR,
            'the on-screen keyboard is disabled (org.gnome.desktop.a11y.applications screen-keyboard-enabled is false)');
    }

    _rebindLater() {
        if (this._rebindSource)
            return;
        this._rebindSource = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._rebindSource = 0;
            this._rebind();
            return GLib.SOURCE_REMOVE;
        });
    }

    _rebind() {
        const actor = Main.keyboard.keyboardActor ?? null;
        if (actor !== this._actor) {
            this._unbindActor();
            this._actor = actor;
            if (actor) {
                this._leaveInPlace(actor);
                this._actorSignals = [
                    actor.connect('notify::translation-y', () => this._moved()),
                    actor.connect('notify::allocation', () => this._moved()),
                    actor.connect('destroy', () => {
                        this._unbindActor();
                        this._rebindLater();
                    }),
                ];
            }
        }
        if (this._enabled !== (actor !== null)) {
            this._enabled = actor !== null;
            this._object.emit_property_changed('Enabled', GLib.Variant.new_boolean(this._enabled));
        }
        // A keyboard destroyed while up (disabled by its setting) says no visibility-changed.
        if (this._visible && !Main.keyboard.visible)
            this._announce();
    }

    // The shell moves the window whose text cursor its keyboard would cover (its keyboard's
    // _setFocusWindow, then _animateWindow): for a window left in place it is told of no window,
    // which also brings back one it had moved. The keyboard's own method comes back on unbinding.
    _leaveInPlace(keyboard) {
        const own = keyboard._setFocusWindow;
        if (typeof own !== 'function' || Object.prototype.hasOwnProperty.call(keyboard, '_setFocusWindow'))
            return;
        keyboard._setFocusWindow = window => own.call(keyboard, this._leftInPlace(window) ? null : window);
    }

    _unbindActor() {
        if (this._actor && Object.prototype.hasOwnProperty.call(this._actor, '_setFocusWindow'))
            delete this._actor._setFocusWindow;
        for (const id of this._actorSignals)
            this._actor?.disconnect(id);
        this._actorSignals = [];
        this._actor = null;
    }

    _frame() {
        if (!this._actor)
            return null;
        const extents = this._actor.get_transformed_extents();
        const frame = [extents.origin.x, extents.origin.y, extents.size.width, extents.size.height];
        // Before its first layout the actor has no extents.
        return frame.every(Number.isFinite) ? frame : null;
    }

    // Where the slide that starts now ends: the shell eases translation-y to minus the height to
    // show the keyboard and back to zero to hide it.
    _target(visible) {
        const frame = this._frame();
        if (!frame)
            return [0, 0, 0, 0];
        const translation = visible ? -this._actor.height : 0;
        return [frame[0], frame[1] + translation - this._actor.translation_y, frame[2], frame[3]];
    }

    _monitor() {
        const monitor = Main.layoutManager.keyboardMonitor ?? Main.layoutManager.primaryMonitor;
        if (!monitor)
            return [0, 0, 0, 0, 0, 1];
        return [monitor.index, monitor.x, monitor.y, monitor.width, monitor.height, monitor.geometry_scale ?? 1];
    }

    _onScreen(frame) {
        const [, x, y, width, height] = this._monitor();
        return frame[2] > 0 && frame[3] > 0 && frame[0] < x + width && frame[0] + frame[2] > x &&
            frame[1] < y + height && frame[1] + frame[3] > y;
    }

    _focusedWindow() {
        const window = global.display.focus_window;
        if (!window)
            return [0, []];
        const ids = [];
        const add = id => {
            if (typeof id === 'string' && id.length > 0 && id.length <= LONGEST_APP_ID &&
                !ids.includes(id) && ids.length < MOST_APP_IDS)
                ids.push(id);
        };
        const app = Shell.WindowTracker.get_default().get_window_app(window);
        if (app && !app.is_window_backed())
            add(app.get_id());
        add(window.get_gtk_application_id());
        add(window.get_sandboxed_app_id?.());
        add(window.get_wm_class());
        add(window.get_wm_class_instance());
        const pid = window.get_pid();
        return [pid > 0 ? pid : 0, ids];
    }

    // Where the shell shows `window` (its frame, as the window manager keeps it, moved with its
    // actor) once the slide that starts now ends: the shell eases the actor of the window it moves
    // to its start less the keyboard's height on a show, back to its start on a hide, and moves
    // the frame there when the slide ends. Empty when nothing tells.
    _windowShown(window) {
        const actor = window?.get_compositor_private?.();
        if (!actor)
            return [0, 0, 0, 0];
        const frame = window.get_frame_rect();
        const buffer = window.get_buffer_rect();
        const keyboard = this._actor;
        let y = actor.y;
        if (keyboard && keyboard._focusWindow === window && Number.isFinite(keyboard._focusWindowStartY)) {
            y = Main.keyboard.visible
                ? keyboard._focusWindowStartY - Main.layoutManager.keyboardBox.height
                : keyboard._focusWindowStartY;
        }
        const shown = [frame.x + actor.x - buffer.x, frame.y + y - buffer.y, frame.width, frame.height];
        return shown.every(Number.isFinite) && frame.width > 0 && frame.height > 0 ? shown : [0, 0, 0, 0];
    }

    _announce() {
        const visible = Boolean(Main.keyboard.visible);
        if (visible === this._visible)
            return;
        this._visible = visible;
        this._focus = this._focusedWindow();
        this._shown = this._windowShown(global.display.focus_window);
        const frame = this._frame() ?? [0, 0, 0, 0];
        this._lastFrame = frame;
        // The focus to each trusted watcher alone, before the visibility everyone may hear; a
        // watcher not judged yet hears none.
        for (const watcher of new Set(this._watchers.values())) {
            if (this._judged.get(watcher) !== true)
                continue;
            try {
                Gio.DBus.session.emit_signal(watcher, OBJECT_PATH, 'org.keyboardadapter.GnomeShell1', 'Focus',
                    new GLib.Variant('((uas)(dddd))', [this._focus, this._shown]));
            } catch (error) {
                // That watcher has just gone.
            }
        }
        this._object.emit_signal('VisibilityChanged', new GLib.Variant('(b(dddd)(dddd)(uiiiid)t)', [
            visible, frame, this._target(visible), this._monitor(), GLib.get_monotonic_time(),
        ]));
    }

    _moved() {
        const frame = this._frame();
        const last = this._lastFrame;
        if (!frame || (last && frame.every((value, index) => value === last[index])))
            return;
        // Hidden and off screen before and after: the place it waits in, nothing to say.
        if (!this._visible && !this._onScreen(frame) && !(last && this._onScreen(last)))
            return;
        this._lastFrame = frame;
        this._object.emit_signal('Moved', new GLib.Variant('((dddd)t)', [frame, GLib.get_monotonic_time()]));
    }
}
