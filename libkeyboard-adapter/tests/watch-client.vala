// watch-client.vala: what a KaWatcher hears, from Vala, one line each (print is g_print, which
// flushes each): the lines of watch-client.c (see there).
//
//     watch-client-vala [--window-id HEX] [--progress]

// An enumeration's nick (Ka.Local.TRUE is "true").
string nick (Type type, int value) {
    unowned EnumValue? found = ((EnumClass) type.class_ref ()).get_value (value);
    return found != null ? found.value_nick : "?";
}

// KaError's GType (Vala's error domains have none of their own).
[CCode (cname = "ka_error_get_type")]
extern Type ka_error_type ();

string error_line (string what, Error error) {
    if (error.domain == Ka.Error.quark ()) {
        return "%s %s: %s".printf (what, nick (ka_error_type (), error.code), error.message);
    }
    return "%s %s %d: %s".printf (what, error.domain.to_string (), error.code, error.message);
}

string rect (Ka.Rect? r) {
    return r != null ? "%d,%d %dx%d".printf (r.x, r.y, r.width, r.height) : "?";
}

void event (string name, Ka.Update update) {
    print ("%s %s local=%s name=%s\n", name, rect (update.end_frame), nick (typeof (Ka.Local), update.local),
           update.keyboard_name);
}

async void show (Ka.Watcher watcher) {
    try {
        yield watcher.show_async (null);
        print ("show ok\n");
    } catch (Error error) {
        print ("%s\n", error_line ("show error", error));
    }
}

async void hide (Ka.Watcher watcher) {
    try {
        yield watcher.hide_async (null);
        print ("hide ok\n");
    } catch (Error error) {
        print ("%s\n", error_line ("hide error", error));
    }
}

int main (string[] args) {
    uint64 window = 0;
    bool progress = false;
    for (int i = 1; i < args.length; i++) {
        if (args[i] == "--window-id" && i + 1 < args.length) {
            window = uint64.parse (args[++i], 16);
        } else if (args[i] == "--progress") {
            progress = true;
        } else {
            stderr.printf ("usage: watch-client-vala [--window-id HEX] [--progress]\n");
            return 2;
        }
    }
    var watcher = new Ka.Watcher ();
    if (window != 0) {
        watcher.set_window_ids ({ window });
    }
    watcher.will_show.connect ((update) => event ("will-show", update));
    watcher.did_show.connect ((update) => event ("did-show", update));
    watcher.will_hide.connect ((update) => event ("will-hide", update));
    watcher.did_hide.connect ((update) => event ("did-hide", update));
    watcher.will_change_frame.connect ((update) => event ("will-change-frame", update));
    watcher.did_change_frame.connect ((update) => event ("did-change-frame", update));
    bool asked_show = false;
    watcher.notify["service-available"].connect (() => {
        print ("available %s\n", watcher.service_available.to_string ());
        if (watcher.service_available && !asked_show) {
            asked_show = true;
            show.begin (watcher);
        }
    });
    watcher.notify["error"].connect (() => {
        if (watcher.error != null) {
            print ("%s\n", error_line ("error", watcher.error));
        }
    });
    watcher.notify["animating"].connect (() => print ("animating %s\n", watcher.animating.to_string ()));
    if (progress) {
        watcher.progress_frames = true;
        watcher.progress.connect ((frame) => {
            print ("progress %s local=%s\n", rect (frame.frame), nick (typeof (Ka.Local), frame.local));
        });
    }
    watcher.notify["visible"].connect (() => {
        print ("visible %s %s\n", watcher.visible.to_string (), rect (watcher.keyboard_rectangle));
    });
    Unix.signal_add (Posix.Signal.USR1, () => {
        hide.begin (watcher);
        return Source.CONTINUE;
    });
    new MainLoop ().run ();
    return 0;
}
