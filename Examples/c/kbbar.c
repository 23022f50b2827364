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
 * activation), then GetState for the keyboards already up, and receives the SubscriberEvent
 * signals the service sends to it alone: each a kbwatch JSON Lines object, schema 1
 * (schema/kbwatch-1.schema.json). From every keyboard's endFrame, clipped to its output, it
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

/* The session service's name, object and interface (Interfaces/org.keyboardadapter.Watcher1.xml). */
#define SERVICE "org.keyboardadapter.Watcher"
#define SERVICE_PATH "/org/keyboardadapter/Watcher"
#define SERVICE_INTERFACE "org.keyboardadapter.Watcher1"
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

/* ---- JSON, read into GVariants ----
 *
 * kbwatch's lines are small and well formed, so a short recursive reader will do: an object
 * becomes a{sv}, an array av, a string s, a number d, true and false b, null an empty maybe. */

static GVariant *json_value(const char **text, int depth);

static void skip_space(const char **text) {
    while (**text == ' ' || **text == '\t' || **text == '\n' || **text == '\r') (*text)++;
}

static gboolean hex4(const char *text, gunichar *out) {
    *out = 0;
    for (int i = 0; i < 4; i++) {
        int digit = g_ascii_xdigit_value(text[i]);
        if (digit < 0) return FALSE;
        *out = *out * 16 + (gunichar)digit;
    }
    return TRUE;
}

/* A string at `*text` (its opening quote) into `out`; moves `*text` past its closing quote. */
static gboolean json_string(const char **text, GString *out) {
    const char *p = *text + 1;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20) return FALSE; /* the end of the text, or a control character */
        if (c != '\\') {
            g_string_append_c(out, (char)c);
            p++;
            continue;
        }
        p++;
        switch (*p) {
        case '"': case '\\': case '/': g_string_append_c(out, *p); break;
        case 'b': g_string_append_c(out, '\b'); break;
        case 'f': g_string_append_c(out, '\f'); break;
        case 'n': g_string_append_c(out, '\n'); break;
        case 'r': g_string_append_c(out, '\r'); break;
        case 't': g_string_append_c(out, '\t'); break;
        case 'u': {
            gunichar code, low;
            if (!hex4(p + 1, &code)) return FALSE;
            p += 4;
            if (code >= 0xD800 && code < 0xDC00 && p[1] == '\\' && p[2] == 'u' && hex4(p + 3, &low) &&
                low >= 0xDC00 && low < 0xE000) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
            g_string_append_unichar(out, code >= 0xD800 && code < 0xE000 ? 0xFFFD : code);
            break;
        }
        default: return FALSE;
        }
        p++;
    }
    *text = p + 1;
    return g_utf8_validate(out->str, (gssize)out->len, NULL);
}

static GVariant *json_object(const char **text, int depth) {
    GVariantBuilder members;
    g_variant_builder_init(&members, G_VARIANT_TYPE_VARDICT);
    const char *p = *text + 1;
    skip_space(&p);
    if (*p == '}') {
        *text = p + 1;
        return g_variant_builder_end(&members);
    }
    GString *key = g_string_new(NULL);
    for (;;) {
        skip_space(&p);
        g_string_truncate(key, 0);
        if (*p != '"' || !json_string(&p, key)) break;
        skip_space(&p);
        if (*p != ':') break;
        p++;
        GVariant *value = json_value(&p, depth + 1);
        if (value == NULL) break;
        g_variant_builder_add(&members, "{sv}", key->str, value);
        skip_space(&p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != '}') break;
        g_string_free(key, TRUE);
        *text = p + 1;
        return g_variant_builder_end(&members);
    }
    g_string_free(key, TRUE);
    g_variant_builder_clear(&members);
    return NULL;
}

static GVariant *json_array(const char **text, int depth) {
    GVariantBuilder elements;
    g_variant_builder_init(&elements, G_VARIANT_TYPE("av"));
    const char *p = *text + 1;
    skip_space(&p);
    if (*p == ']') {
        *text = p + 1;
        return g_variant_builder_end(&elements);
    }
    for (;;) {
        GVariant *value = json_value(&p, depth + 1);
        if (value == NULL) break;
        g_variant_builder_add(&elements, "v", value);
        skip_space(&p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != ']') break;
        *text = p + 1;
        return g_variant_builder_end(&elements);
    }
    g_variant_builder_clear(&elements);
    return NULL;
}

static GVariant *json_value(const char **text, int depth) {
    if (depth > 32) return NULL;
    skip_space(text);
    const char *p = *text;
    if (*p == '{') return json_object(text, depth);
    if (*p == '[') return json_array(text, depth);
    if (*p == '"') {
        GString *string = g_string_new(NULL);
        GVariant *value = json_string(text, string) ? g_variant_new_string(string->str) : NULL;
        g_string_free(string, TRUE);
        return value;
    }
    if (*p == '-' || g_ascii_isdigit(*p)) {
        while (*p != '\0' && strchr("+-.0123456789eE", *p) != NULL) p++;
        char *number = g_strndup(*text, (gsize)(p - *text));
        char *end;
        double value = g_ascii_strtod(number, &end); /* not strtod: GTK sets the user's locale */
        gboolean whole = *end == '\0';
        g_free(number);
        if (!whole) return NULL;
        *text = p;
        return g_variant_new_double(value);
    }
    static const struct {
        const char *word;
        int kind;
    } words[] = {{"true", 1}, {"false", 0}, {"null", -1}};
    for (size_t i = 0; i < G_N_ELEMENTS(words); i++) {
        size_t length = strlen(words[i].word);
        if (strncmp(p, words[i].word, length) != 0) continue;
        *text = p + length;
        if (words[i].kind < 0) return g_variant_new_maybe(G_VARIANT_TYPE_VARIANT, NULL);
        return g_variant_new_boolean(words[i].kind);
    }
    return NULL;
}

/* A whole JSON text, or NULL when it is not one; a new (non-floating) reference. */
static GVariant *json_parse(const char *text) {
    GVariant *value = json_value(&text, 0);
    if (value == NULL) return NULL;
    g_variant_ref_sink(value);
    skip_space(&text);
    if (*text != '\0') {
        g_variant_unref(value);
        return NULL;
    }
    return value;
}

/* An object's member `key`, or NULL when it is missing or null (or `object` is no object). */
static GVariant *member(GVariant *object, const char *key) {
    if (object == NULL || !g_variant_is_of_type(object, G_VARIANT_TYPE_VARDICT)) return NULL;
    GVariant *value = g_variant_lookup_value(object, key, NULL);
    if (value != NULL && g_variant_is_of_type(value, G_VARIANT_TYPE_MAYBE)) {
        g_variant_unref(value);
        return NULL;
    }
    return value;
}

static gboolean number_member(GVariant *object, const char *key, double *out) {
    GVariant *value = member(object, key);
    gboolean found = value != NULL && g_variant_is_of_type(value, G_VARIANT_TYPE_DOUBLE);
    if (found) *out = g_variant_get_double(value);
    if (value != NULL) g_variant_unref(value);
    return found;
}

/* A string member, copied (g_free it), or NULL. */
static char *string_member(GVariant *object, const char *key) {
    GVariant *value = member(object, key);
    char *string = NULL;
    if (value != NULL && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) string = g_variant_dup_string(value, NULL);
    if (value != NULL) g_variant_unref(value);
    return string;
}

static gboolean bool_member(GVariant *object, const char *key) {
    GVariant *value = member(object, key);
    gboolean yes = value != NULL && g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean(value);
    if (value != NULL) g_variant_unref(value);
    return yes;
}

/* ---- Layout ---- */

/* A rectangle as left, top, right, bottom. */
typedef struct {
    int left, top, right, bottom;
} Box;

static gboolean box_of(GVariant *frame, Box *out) {
    double x, y, width, height;
    if (!number_member(frame, "x", &x) || !number_member(frame, "y", &y) || !number_member(frame, "width", &width) ||
        !number_member(frame, "height", &height))
        return FALSE;
    *out = (Box){(int)x, (int)y, (int)(x + width), (int)(y + height)};
    return TRUE;
}

/* The keyboard frame clipped to its output when known (output may be NULL). */
static gboolean clipped(GVariant *frame, GVariant *output, Box *out) {
    Box screen;
    if (!box_of(frame, out)) return FALSE;
    if (output != NULL && box_of(output, &screen)) {
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

static void handle(App *app, GVariant *event) {
    double schema = 0;
    char *kind = string_member(event, "event");
    if (!number_member(event, "schema", &schema) || schema != 1 || kind == NULL || strcmp(kind, "progress") == 0) {
        g_free(kind);
        return;
    }
    GVariant *keyboard = member(event, "keyboard");
    char *id = string_member(keyboard, "id"), *name = string_member(keyboard, "name");
    char *keyboard_kind = string_member(keyboard, "kind");
    if (id != NULL && name != NULL && keyboard_kind != NULL) {
        say("%s %s", kind, name);
        /* Input-method panels sit beside the caret; the bar need not dodge them. */
        if (strcmp(keyboard_kind, "keyboard") == 0) {
            GVariant *end = member(event, "endFrame"), *output = member(event, "output");
            Box box;
            if (bool_member(event, "visible") && end != NULL && clipped(end, output, &box))
                g_hash_table_replace(app->keyboards, g_strdup(id), g_memdup2(&box, sizeof box));
            else /* hidden, or up at an unknown place (null frames): nothing to measure */
                g_hash_table_remove(app->keyboards, id);
            if (end != NULL) g_variant_unref(end);
            if (output != NULL) g_variant_unref(output);
            relayout(app);
        }
    }
    g_free(keyboard_kind);
    g_free(name);
    g_free(id);
    if (keyboard != NULL) g_variant_unref(keyboard);
    g_free(kind);
}

static void signalled(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                      const char *signal, GVariant *parameters, gpointer data) {
    (void)bus, (void)sender, (void)path, (void)interface, (void)signal;
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(s)"))) return;
    const char *line;
    g_variant_get(parameters, "(&s)", &line);
    GVariant *event = json_parse(line);
    if (event == NULL) return;
    handle(data, event);
    g_variant_unref(event);
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
    const char *text;
    g_variant_get(reply, "(&s)", &text);
    GVariant *state = json_parse(text);
    double schema = 0;
    GVariant *keyboards = member(state, "keyboards");
    if (number_member(state, "schema", &schema) && schema == 1 && keyboards != NULL &&
        g_variant_is_of_type(keyboards, G_VARIANT_TYPE("av"))) {
        g_hash_table_remove_all(app->keyboards);
        for (gsize i = 0; i < g_variant_n_children(keyboards); i++) {
            GVariant *entry = g_variant_get_child_value(keyboards, i);
            GVariant *object = g_variant_get_variant(entry);
            GVariant *keyboard = member(object, "keyboard"), *frame = member(object, "frame");
            GVariant *output = member(object, "output");
            char *id = string_member(keyboard, "id"), *name = string_member(keyboard, "name");
            char *kind = string_member(keyboard, "kind");
            Box box;
            if (name != NULL) say("visible %s", name);
            if (id != NULL && kind != NULL && strcmp(kind, "keyboard") == 0 && frame != NULL &&
                clipped(frame, output, &box))
                g_hash_table_replace(app->keyboards, g_strdup(id), g_memdup2(&box, sizeof box));
            g_free(kind);
            g_free(name);
            g_free(id);
            if (output != NULL) g_variant_unref(output);
            if (frame != NULL) g_variant_unref(frame);
            if (keyboard != NULL) g_variant_unref(keyboard);
            g_variant_unref(object);
            g_variant_unref(entry);
        }
        relayout(app);
    }
    if (keyboards != NULL) g_variant_unref(keyboards);
    if (state != NULL) g_variant_unref(state);
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
                           G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, got_state, app);
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
    g_dbus_connection_signal_subscribe(app.bus, SERVICE, SERVICE_INTERFACE, "SubscriberEvent", SERVICE_PATH, NULL,
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
