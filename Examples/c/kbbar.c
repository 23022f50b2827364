/*
 * kbbar: a GTK 3 window whose entry bar stays above the on-screen keyboard, in C, on
 * libkeyboard-adapter (its KaWatcher subscribes to the session service `kbwatch --serve`, which
 * the bus starts when it is installed, follows its restarts and keeps its rules). The same app as
 * `Examples/python/kbbar.py --service`.
 *
 * Build (a C compiler, libgtk-3-dev and libkeyboard-adapter-dev):
 *
 *     cc -Wall -Wextra -O2 -o kbbar Examples/c/kbbar.c $(pkg-config --cflags --libs gtk+-3.0 keyboard-adapter-1)
 *
 * Run:
 *
 *     ./kbbar [--position X,Y] [--size WxH]
 *
 * It prints `subscribed` and `service gone` as the service comes and goes, `willShow NAME` and
 * the other events, `window 0x...` (its X window) at start, and after each relayout
 * `bar bottom Y inset N` (Y: the bar's bottom edge on the screen; N: the covered inset). SIGINT
 * and SIGTERM end it.
 */
#include <gdk/gdkx.h>
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <keyboard-adapter.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    KaWatcher *watcher;
    GtkWidget *window, *bar;
    int inset, last_bottom, last_inset;
} App;

/* How much of the window's bottom (its client area on the screen) the keyboard covers, when it
 * reaches the window's bottom edge or is nearer it than the top. GTK 3 apps do this themselves:
 * libkeyboard-adapter-gtk4's KaGtkCoverage, which does it for a GtkWindow, is GTK 4's. */
static int bottom_inset(App *app) {
    GdkWindow *window = gtk_widget_get_window(app->window);
    const KaRect *k = ka_watcher_get_keyboard_rectangle(app->watcher);
    int x, y, width = gdk_window_get_width(window), height = gdk_window_get_height(window);
    gdk_window_get_origin(window, &x, &y);
    int top = MAX(k->y, y), bottom = MIN(k->y + k->height, y + height);
    if (k->x >= x + width || k->x + k->width <= x || top >= bottom) return 0;
    return bottom >= y + height || y + height - top <= bottom - y ? y + height - top : 0;
}

/* Prints where the bar's bottom edge is on screen, once per change, once laid out. */
static void allocated(GtkWidget *bar, GdkRectangle *allocation, App *app) {
    int x, y, bar_y;
    if (!gtk_widget_get_realized(app->window) || !gtk_widget_translate_coordinates(bar, app->window, 0, 0, &x, &bar_y))
        return;
    gdk_window_get_origin(gtk_widget_get_window(app->window), &x, &y);
    int bottom = y + bar_y + allocation->height;
    if (bottom != app->last_bottom || app->inset != app->last_inset)
        printf("bar bottom %d inset %d\n", app->last_bottom = bottom, app->last_inset = app->inset);
    fflush(stdout);
}

static void relayout(App *app) {
    app->inset = bottom_inset(app);
    gtk_widget_set_margin_bottom(app->bar, app->inset); /* allocated() reports once laid out */
    gtk_widget_queue_resize(app->bar);
}

static gboolean configured(GtkWidget *window, GdkEvent *event, App *app) {
    (void)window, (void)event;
    relayout(app); /* it moved or changed size */
    return FALSE;
}

static void rectangle_changed(KaWatcher *watcher, GParamSpec *pspec, App *app) {
    (void)watcher, (void)pspec;
    relayout(app);
}

static void available(KaWatcher *watcher, GParamSpec *pspec, gpointer data) {
    (void)pspec, (void)data;
    printf("%s\n", ka_watcher_get_service_available(watcher) ? "subscribed" : "service gone");
    fflush(stdout);
}

static void event(KaWatcher *watcher, KaUpdate *update, const char *name) {
    (void)watcher;
    printf("%s %s\n", name, ka_update_get_keyboard_name(update));
    fflush(stdout);
}

static gboolean quit(gpointer data) {
    (void)data;
    gtk_main_quit();
    return G_SOURCE_CONTINUE;
}

int main(int argc, char **argv) {
    int x = 240, y = 40, width = 800, height = 600;
    for (int i = 1; i < argc; i++) {
        char extra;
        gboolean good = i + 1 < argc;
        if (strcmp(argv[i], "--help") == 0) {
            printf("usage: kbbar [--position X,Y] [--size WxH]\n");
            return 0;
        } else if (good && strcmp(argv[i], "--position") == 0) {
            good = sscanf(argv[++i], "%d,%d%c", &x, &y, &extra) == 2;
        } else if (good && strcmp(argv[i], "--size") == 0) {
            good = sscanf(argv[++i], "%dx%d%c", &width, &height, &extra) == 2 && width > 0 && height > 0;
        } else {
            good = FALSE;
        }
        if (!good) {
            fprintf(stderr, "usage: kbbar [--position X,Y] [--size WxH]\n");
            return 2;
        }
    }
    gdk_set_allowed_backends("x11"); /* it places its window, which only X11 lets it */
    if (!gtk_init_check(NULL, NULL)) {
        fprintf(stderr, "kbbar: cannot open the X display\n");
        return 1;
    }

    /* Content above, an entry bar at the bottom (its allocation ends at its bottom edge: the
     * spacing is its children's margins), padded up by the covered inset. */
    App app = {.last_bottom = -1};
    app.window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_default_size(GTK_WINDOW(app.window), width, height);
    gtk_window_set_resizable(GTK_WINDOW(app.window), FALSE);
    gtk_window_move(GTK_WINDOW(app.window), x, y);
    GtkWidget *layout = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_pack_start(GTK_BOX(layout), gtk_label_new("Type below: the bar stays above the keyboard."), TRUE,
                       TRUE, 0);
    app.bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    GtkWidget *entry = gtk_entry_new(), *send = gtk_button_new_with_label("Send");
    g_object_set(entry, "margin", 6, "placeholder-text", "Message", NULL);
    g_object_set(send, "margin", 6, NULL);
    gtk_box_pack_start(GTK_BOX(app.bar), entry, TRUE, TRUE, 0);
    gtk_box_pack_start(GTK_BOX(app.bar), send, FALSE, FALSE, 0);
    gtk_box_pack_end(GTK_BOX(layout), app.bar, FALSE, FALSE, 0);
    gtk_container_add(GTK_CONTAINER(app.window), layout);
    g_signal_connect(app.bar, "size-allocate", G_CALLBACK(allocated), &app);
    g_signal_connect(app.window, "configure-event", G_CALLBACK(configured), &app);
    g_signal_connect(app.window, "destroy", G_CALLBACK(gtk_main_quit), NULL);
    gtk_widget_show_all(app.window);
    guint64 xid = GDK_WINDOW_XID(gtk_widget_get_window(app.window));
    printf("window 0x%" G_GINT64_MODIFIER "x\n", xid);

    app.watcher = ka_watcher_new();
    ka_watcher_set_window_ids(app.watcher, &xid, 1); /* its own window is the app's, for `local` */
    g_signal_connect(app.watcher, "notify::service-available", G_CALLBACK(available), NULL);
    g_signal_connect(app.watcher, "notify::keyboard-rectangle", G_CALLBACK(rectangle_changed), &app);
    const char *events[][2] = {{"will-show", "willShow"},         {"did-show", "didShow"},
                               {"will-hide", "willHide"},         {"did-hide", "didHide"},
                               {"will-change-frame", "willChangeFrame"}, {"did-change-frame", "didChangeFrame"}};
    for (size_t i = 0; i < G_N_ELEMENTS(events); i++)
        g_signal_connect(app.watcher, events[i][0], G_CALLBACK(event), (gpointer)events[i][1]);
    g_unix_signal_add(SIGINT, quit, NULL);
    g_unix_signal_add(SIGTERM, quit, NULL);
    relayout(&app);
    gtk_main();
    g_object_unref(app.watcher);
    return 0;
}
