/*
 * kbbar: a GTK 3 window whose entry bar stays above the on-screen keyboard, in C, fed by the
 * session service (`kbwatch --serve`, org.keyboardadapter.Watcher on the session bus) through
 * GDBus. The same app as `Examples/python/kbbar.py --service`.
 *
 * Build (a C compiler and libgtk-3-dev):
 *
 *     cc -Wall -Wextra -O2 -o kbbar Examples/c/kbbar.c $(pkg-config --cflags --libs gtk+-3.0)
 *
 * Run:
 *
 *     ./kbbar [--position X,Y] [--size WxH]
 *
 * It calls Subscribe, which starts the service when it is installed and not running (D-Bus
 * activation) and keeps it running, then GetState for the keyboards already up, and receives the
 * Event signals the service sends to every listener (a bar needs no `local`, which comes to a
 * subscriber in Verdict signals): each update a D-Bus dictionary (a{sv}) of typed values,
 * frames (iiii), a key left out where its value is unknown (Interfaces/org.keyboardadapter.Watcher2.xml
 * lists them). From every keyboard's end_frame, clipped to its output, it
 * computes how much of its own window's bottom is covered, and pads the bar up by that much. A
 * will event already names where the keyboard is going, so the bar moves as the keyboard starts
 * to; a hide gives the space back. When the service goes away its keyboards are forgotten, and a
 * second later kbbar subscribes again, which starts a new one.
 *
 * After each relayout it prints `bar bottom Y inset N` (Y: the bar's bottom edge in screen
 * coordinates; N: the covered inset), and at start `window 0x...` (its X window id). SIGINT and
 * SIGTERM end it.
 */
#include <gdk/gdkx.h>
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The session service's name, object and interface (Interfaces/org.keyboardadapter.Watcher2.xml). */
#define SERVICE "org.keyboardadapter.Watcher"
#define SERVICE_PATH "/org/keyboardadapter/Watcher"
#define SERVICE_INTERFACE "org.keyboardadapter.Watcher2"
/* How long a call may take, the bus starting the service included. */
#define CALL_TIMEOUT_MS 25000

/* One line on standard output, flushed at once (a test reads it while the app runs). */
static void say(const char *format, ...) G_GNUC_PRINTF(1, 2);
static void say(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vprintf(format, arguments);
    va_end(arguments);
    putchar('\n');
    fflush(stdout);
}

/* ---- Reading the service's dictionaries ---- */

/* A string entry of a dictionary (a{sv}), pointing into it, or NULL when missing or no string. */
static const char *string_entry(GVariant *dictionary, const char *key) {
    const char *text = NULL;
    if (dictionary == NULL || !g_variant_lookup(dictionary, key, "&s", &text)) return NULL;
    return text;
}

static gboolean bool_entry(GVariant *dictionary, const char *key) {
    gboolean yes = FALSE;
    return dictionary != NULL && g_variant_lookup(dictionary, key, "b", &yes) && yes;
}

/* A dictionary entry of a dictionary (a{sv}), a new reference, or NULL. */
static GVariant *dictionary_entry(GVariant *dictionary, const char *key) {
    return dictionary == NULL ? NULL : g_variant_lookup_value(dictionary, key, G_VARIANT_TYPE_VARDICT);
}

/* ---- Layout ---- */

/* A rectangle as left, top, right, bottom. */
typedef struct {
    int left, top, right, bottom;
} Box;

/* The frame entry `key` ((iiii): x, y, width, height) of a dictionary; FALSE when it has none. */
static gboolean box_of(GVariant *dictionary, const char *key, Box *out) {
    gint32 x, y, width, height;
    if (dictionary == NULL || !g_variant_lookup(dictionary, key, "(iiii)", &x, &y, &width, &height)) return FALSE;
    *out = (Box){x, y, x + width, y + height};
    return TRUE;
}

/* The frame entry `key` of `entry` clipped to the entry's output when known. */
static gboolean clipped(GVariant *entry, const char *key, Box *out) {
    Box screen;
    if (!box_of(entry, key, out)) return FALSE;
    GVariant *output = dictionary_entry(entry, "output");
    gboolean known = box_of(output, "frame", &screen);
    if (output != NULL) g_variant_unref(output);
    if (known) {
        out->left = MAX(out->left, screen.left);
        out->top = MAX(out->top, screen.top);
        out->right = MIN(out->right, screen.right);
        out->bottom = MIN(out->bottom, screen.bottom);
    }
    return TRUE;
}

/* How much of the window's bottom the keyboards cover. A covered part is kept free at the
 * bottom when it reaches the window's bottom edge or is nearer the bottom than the top (as
 * KeyboardAdapter's WindowGeometry.insets does). */
static int bottom_inset(GHashTable *keyboards, Box window) {
    int inset = 0;
    GHashTableIter iter;
    gpointer value;
    g_hash_table_iter_init(&iter, keyboards);
    while (g_hash_table_iter_next(&iter, NULL, &value)) {
        const Box *keyboard = value;
        Box c = {MAX(keyboard->left, window.left), MAX(keyboard->top, window.top),
                 MIN(keyboard->right, window.right), MIN(keyboard->bottom, window.bottom)};
        if (c.left >= c.right || c.top >= c.bottom) continue; /* covers nothing of this window */
        if (c.bottom >= window.bottom || window.bottom - c.top <= c.bottom - window.top)
            inset = MAX(inset, window.bottom - c.top);
    }
    return inset;
}

typedef struct {
    GtkWidget *window, *bar;
    int inset;
    gboolean layout_pending; /* a new inset given to GTK, not laid out yet */
    gboolean reported;
    int last_bottom, last_inset;
    GHashTable *keyboards; /* id -> Box, for the keyboards that are up */
    GDBusConnection *bus;
    GVariant *options; /* Subscribe's (a{sv}) */
    gboolean failed;
} App;

/* The window's client area in screen coordinates. */
static gboolean window_frame(App *app, Box *out) {
    GdkWindow *window = gtk_widget_get_window(app->window);
    if (window == NULL) return FALSE;
    int x, y;
    gdk_window_get_origin(window, &x, &y);
    *out = (Box){x, y, x + gdk_window_get_width(window), y + gdk_window_get_height(window)};
    return TRUE;
}

/* Prints where the bar's bottom edge is on screen, once per change, when laid out. */
static gboolean report(gpointer data) {
    App *app = data;
    Box frame;
    int x, y;
    if (!window_frame(app, &frame) || app->layout_pending) return G_SOURCE_REMOVE;
    if (!gtk_widget_translate_coordinates(app->bar, app->window, 0, 0, &x, &y)) return G_SOURCE_REMOVE;
    GtkAllocation allocation;
    gtk_widget_get_allocation(app->bar, &allocation);
    int bottom = frame.top + y + allocation.height;
    if (!app->reported || bottom != app->last_bottom || app->inset != app->last_inset) {
        app->reported = TRUE;
        app->last_bottom = bottom;
        app->last_inset = app->inset;
        say("bar bottom %d inset %d", bottom, app->inset);
    }
    return G_SOURCE_REMOVE;
}

static gboolean relayout(gpointer data) {
    App *app = data;
    Box frame;
    if (!window_frame(app, &frame)) return G_SOURCE_REMOVE;
    int inset = bottom_inset(app->keyboards, frame);
    if (inset != app->inset) {
        /* The bar reports once GTK has laid it out again (size-allocate). */
        app->inset = inset;
        app->layout_pending = TRUE;
        gtk_widget_set_margin_bottom(app->bar, inset);
    } else {
        /* Nothing to lay out; the window may have moved, so say where the bar is now. */
        g_idle_add(report, app);
    }
    return G_SOURCE_REMOVE;
}

static void allocated(GtkWidget *widget, GdkRectangle *allocation, gpointer data) {
    (void)widget, (void)allocation;
    App *app = data;
    app->layout_pending = FALSE;
    g_idle_add(report, app);
}

static gboolean configured(GtkWidget *widget, GdkEvent *event, gpointer data) {
    (void)widget, (void)event;
    g_idle_add(relayout, data);
    return FALSE;
}

/* ---- The session service ---- */

/* One update: its keyboard's frame kept while it is up, dropped once it is not. */
static void handle(App *app, GVariant *update) {
    const char *event = string_entry(update, "event");
    GVariant *keyboard = dictionary_entry(update, "keyboard");
    const char *id = string_entry(keyboard, "id"), *name = string_entry(keyboard, "name");
    const char *kind = string_entry(keyboard, "kind");
    if (event != NULL && id != NULL && name != NULL && kind != NULL) {
        say("%s %s", event, name);
        /* Input-method panels sit beside the caret; the bar need not dodge them. */
        if (strcmp(kind, "keyboard") == 0) {
            Box box;
            if (bool_entry(update, "visible") && clipped(update, "end_frame", &box))
                g_hash_table_replace(app->keyboards, g_strdup(id), g_memdup2(&box, sizeof box));
            else /* hidden, or up at an unknown place (no frame): nothing to measure */
                g_hash_table_remove(app->keyboards, id);
            relayout(app);
        }
    }
    if (keyboard != NULL) g_variant_unref(keyboard);
}

static void signalled(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                      const char *signal, GVariant *parameters, gpointer data) {
    (void)bus, (void)sender, (void)path, (void)interface, (void)signal;
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(a{sv})"))) return;
    GVariant *update = g_variant_get_child_value(parameters, 0);
    handle(data, update);
    g_variant_unref(update);
}

/* Reports a failed call and ends the app. */
static void failed(App *app, GError *error) {
    say("kbwatch service: %s", error->message);
    g_error_free(error);
    app->failed = TRUE;
    gtk_main_quit();
}

/* GetState's keyboards, answered after every event sent before it, replace what those said. */
static void got_state(GObject *source, GAsyncResult *result, gpointer data) {
    App *app = data;
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
    if (reply == NULL) {
        failed(app, error);
        return;
    }
    GVariant *state = g_variant_get_child_value(reply, 0);
    GVariant *keyboards = g_variant_lookup_value(state, "keyboards", G_VARIANT_TYPE("aa{sv}"));
    if (keyboards != NULL) {
        g_hash_table_remove_all(app->keyboards);
        for (gsize i = 0; i < g_variant_n_children(keyboards); i++) {
            GVariant *entry = g_variant_get_child_value(keyboards, i);
            GVariant *keyboard = dictionary_entry(entry, "keyboard");
            const char *id = string_entry(keyboard, "id"), *name = string_entry(keyboard, "name");
            const char *kind = string_entry(keyboard, "kind");
            Box box;
            if (name != NULL) say("visible %s", name);
            if (id != NULL && kind != NULL && strcmp(kind, "keyboard") == 0 && clipped(entry, "frame", &box))
                g_hash_table_replace(app->keyboards, g_strdup(id), g_memdup2(&box, sizeof box));
            if (keyboard != NULL) g_variant_unref(keyboard);
            g_variant_unref(entry);
        }
        g_variant_unref(keyboards);
        relayout(app);
    }
    g_variant_unref(state);
    g_variant_unref(reply);
}

static void subscribed(GObject *source, GAsyncResult *result, gpointer data) {
    App *app = data;
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
    if (reply == NULL) {
        failed(app, error);
        return;
    }
    g_variant_unref(reply);
    say("subscribed");
    g_dbus_connection_call(app->bus, SERVICE, SERVICE_PATH, SERVICE_INTERFACE, "GetState", NULL,
                           G_VARIANT_TYPE("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, got_state, app);
}

/* Flags NONE: the bus may start the service for this call (D-Bus activation). */
static gboolean subscribe(gpointer data) {
    App *app = data;
    g_dbus_connection_call(app->bus, SERVICE, SERVICE_PATH, SERVICE_INTERFACE, "Subscribe",
                           g_variant_new("(@a{sv})", app->options), NULL, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
                           NULL, subscribed, app);
    return G_SOURCE_REMOVE; /* also a one-shot timeout */
}

static void owner_changed(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                          const char *signal, GVariant *parameters, gpointer data) {
    (void)bus, (void)sender, (void)path, (void)interface, (void)signal;
    App *app = data;
    const char *name, *old_owner, *new_owner;
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)"))) return;
    g_variant_get(parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
    if (old_owner[0] == '\0') return; /* started (by this app's call, or by another client) */
    say("service gone");
    g_hash_table_remove_all(app->keyboards);
    relayout(app);
    g_timeout_add_seconds(1, subscribe, app);
}

static void closed(GDBusConnection *bus, gboolean remote_peer_vanished, GError *error, gpointer data) {
    (void)bus, (void)remote_peer_vanished, (void)error, (void)data;
    say("session bus closed");
    gtk_main_quit();
}

static gboolean quit(gpointer data) {
    (void)data;
    gtk_main_quit();
    return G_SOURCE_CONTINUE;
}

/* ---- The app ---- */

static void usage(FILE *stream) {
    fprintf(stream, "usage: kbbar [--position X,Y] [--size WxH]\n"
                    "An entry bar kept above the on-screen keyboard, from kbwatch's session service.\n"
                    "  --position X,Y  where the window goes (default 240,40)\n"
                    "  --size WxH      the window's size (default 800x600)\n");
}

/* `--name VALUE` or `--name=VALUE` at argv[*i]: its value, moving *i past it; else NULL. */
static const char *option(int argc, char **argv, int *i, const char *name) {
    size_t length = strlen(name);
    if (strncmp(argv[*i], name, length) != 0) return NULL;
    if (argv[*i][length] == '=') return argv[*i] + length + 1;
    if (argv[*i][length] != '\0' || *i + 1 >= argc) return NULL;
    return argv[++*i];
}

int main(int argc, char **argv) {
    int x = 240, y = 40, width = 800, height = 600;
    for (int i = 1; i < argc; i++) {
        const char *value, *given = argv[i];
        char extra;
        gboolean good;
        if (strcmp(given, "--help") == 0 || strcmp(given, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if ((value = option(argc, argv, &i, "--position")) != NULL) {
            good = sscanf(value, "%d,%d%c", &x, &y, &extra) == 2;
        } else if ((value = option(argc, argv, &i, "--size")) != NULL) {
            good = sscanf(value, "%dx%d%c", &width, &height, &extra) == 2 && width > 0 && height > 0;
        } else {
            good = FALSE;
        }
        if (!good) {
            fprintf(stderr, "kbbar: cannot use %s\n", value != NULL ? value : given);
            usage(stderr);
            return 2;
        }
    }

    gdk_set_allowed_backends("x11"); /* kbwatch on X11 reports X screen coordinates */
    if (!gtk_init_check(NULL, NULL)) {
        fprintf(stderr, "kbbar: cannot open the X display\n");
        return 1;
    }

    App app = {0};
    app.keyboards = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    /* Content above, an entry bar at the bottom, padded up by the covered inset. */
    app.window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_title(GTK_WINDOW(app.window), "kbbar");
    gtk_window_set_default_size(GTK_WINDOW(app.window), width, height);
    gtk_window_set_resizable(GTK_WINDOW(app.window), FALSE);
    gtk_window_move(GTK_WINDOW(app.window), x, y);
    GtkWidget *layout = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *content = gtk_label_new("Type below: the bar stays above the on-screen keyboard.");
    gtk_box_pack_start(GTK_BOX(layout), content, TRUE, TRUE, 0);
    /* The bar's own allocation reaches its bottom edge (the spacing is the children's margins),
     * so what it reports is exactly where the bar ends. */
    app.bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *entry = gtk_entry_new(), *send = gtk_button_new_with_label("Send");
    gtk_entry_set_placeholder_text(GTK_ENTRY(entry), "Message");
    GtkWidget *children[] = {entry, send};
    for (size_t i = 0; i < G_N_ELEMENTS(children); i++) {
        gtk_widget_set_margin_top(children[i], 6);
        gtk_widget_set_margin_bottom(children[i], 6);
        gtk_widget_set_margin_start(children[i], 6);
        gtk_widget_set_margin_end(children[i], 6);
        gtk_box_pack_start(GTK_BOX(app.bar), children[i], children[i] == entry, children[i] == entry, 0);
    }
    gtk_box_pack_end(GTK_BOX(layout), app.bar, FALSE, FALSE, 0);
    gtk_container_add(GTK_CONTAINER(app.window), layout);
    g_signal_connect(app.bar, "size-allocate", G_CALLBACK(allocated), &app);
    g_signal_connect(app.window, "configure-event", G_CALLBACK(configured), &app);
    g_signal_connect(app.window, "destroy", G_CALLBACK(gtk_main_quit), NULL);
    gtk_widget_show_all(app.window);
    guint64 xid = GDK_WINDOW_XID(gtk_widget_get_window(app.window));
    say("window 0x%" G_GINT64_MODIFIER "x", xid);

    GError *error = NULL;
    app.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (app.bus == NULL) {
        say("kbwatch service: %s", error->message);
        g_error_free(error);
        return 1;
    }
    g_dbus_connection_set_exit_on_close(app.bus, FALSE); /* a closed bus ends the loop (closed) */
    g_signal_connect(app.bus, "closed", G_CALLBACK(closed), NULL);
    /* The signals first, so that none sent after Subscribe is missed. */
    g_dbus_connection_signal_subscribe(app.bus, SERVICE, SERVICE_INTERFACE, "Event", SERVICE_PATH, NULL,
                                       G_DBUS_SIGNAL_FLAGS_NONE, signalled, &app, NULL);
    g_dbus_connection_signal_subscribe(app.bus, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                       "/org/freedesktop/DBus", SERVICE, G_DBUS_SIGNAL_FLAGS_NONE, owner_changed, &app,
                                       NULL);
    /* The bar's own window counts as the app's when the service judges `local`. */
    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add(&options, "{sv}", "window_ids",
                          g_variant_new_fixed_array(G_VARIANT_TYPE_UINT64, &xid, 1, sizeof xid));
    app.options = g_variant_ref_sink(g_variant_builder_end(&options));
    subscribe(&app);
    g_unix_signal_add(SIGINT, quit, NULL);
    g_unix_signal_add(SIGTERM, quit, NULL);
    relayout(&app);
    gtk_main();

    if (!g_dbus_connection_is_closed(app.bus)) {
        /* Leaving is polite, never a reason to start the service: not running, nothing to leave. */
        GVariant *reply = g_dbus_connection_call_sync(app.bus, SERVICE, SERVICE_PATH, SERVICE_INTERFACE, "Unsubscribe",
                                                      NULL, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, 1000, NULL, NULL);
        if (reply != NULL) g_variant_unref(reply);
    }
    g_object_unref(app.bus);
    g_variant_unref(app.options);
    g_hash_table_destroy(app.keyboards);
    return app.failed ? 1 : 0;
}
