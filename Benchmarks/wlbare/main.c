/* wlbare: the floor of kbwatch's Wayland show, for wlbench. A plain libwayland client that does
   what the Wayland backend must do to tell where a keyboard is, and nothing more: an invisible
   layer surface on the output anchored to all four edges (the compositor keeps it sized to the
   output's usable area), and after each configure that changes its size, unless the size is the
   whole output's, one unmapped xdg_popup placed far off-screen with slide constraints, whose
   configured position tells where the usable area starts (the keyboard's edge). For each new
   usable area it writes one line to stdout with one write(2):

       show X Y WIDTH HEIGHT    the area after a keyboard reserved part of the output (the popup's answer)
       hide 0 0 WIDTH HEIGHT    the whole output again, reported at the configure itself

   Usage: wlbare [--once]   (--once: write the usable area once, as `area X Y W H`, and exit;
   the floor of `kbwatch --state`) */
#include <CWaylandProtocols.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>

static struct wl_compositor *compositor;
static struct zwlr_layer_shell_v1 *layer_shell;
static struct xdg_wm_base *wm_base;
static struct wl_output *output;
static struct wl_surface *probe_surface;
static int once, done;
static uint32_t width, height, full_width, full_height;

/* The popup in flight, and its answer. */
static struct wl_surface *popup_surface;
static struct xdg_surface *popup_xdg;
static struct xdg_popup *popup;
static int32_t popup_x, popup_y, popup_placed, ask_again;

static void say(const char *what, int x, int y) {
    char line[96];
    int length = snprintf(line, sizeof line, "%s %d %d %u %u\n", what, x, y, width, height);
    if (write(1, line, (size_t)length) != length) exit(1);
    if (once) done = 1;
}

static void query(struct zwlr_layer_surface_v1 *parent);

static void popup_finished(struct zwlr_layer_surface_v1 *parent, int answered) {
    ka_xdg_popup_destroy(popup);
    ka_xdg_surface_destroy(popup_xdg);
    wl_surface_destroy(popup_surface);
    popup = NULL;
    if (ask_again) {
        ask_again = 0;
        query(parent);
    } else if (answered) {
        say(once ? "area" : "show", -popup_x, -popup_y);
    }
}

static void popup_configure(void *data, struct xdg_popup *p, int32_t x, int32_t y, int32_t w, int32_t h) {
    (void)data, (void)p, (void)w, (void)h;
    popup_x = x, popup_y = y, popup_placed = 1;
}

static void popup_done(void *data, struct xdg_popup *p) {
    (void)p;
    popup_finished(data, 0);
}

static void popup_xdg_configure(void *data, struct xdg_surface *surface, uint32_t serial) {
    (void)surface, (void)serial;
    popup_finished(data, popup_placed);
}

static const struct ka_xdg_popup_listener popup_listener = {popup_configure, popup_done};
static const struct ka_xdg_surface_listener popup_xdg_listener = {popup_xdg_configure};

static void query(struct zwlr_layer_surface_v1 *parent) {
    if (popup != NULL) {
        ask_again = 1;
        return;
    }
    popup_placed = 0;
    popup_surface = wl_compositor_create_surface(compositor);
    popup_xdg = ka_wm_base_get_xdg_surface(wm_base, popup_surface);
    struct xdg_positioner *positioner = ka_wm_base_create_positioner(wm_base);
    ka_positioner_set_size(positioner, 1, 1);
    ka_positioner_set_anchor_rect(positioner, 0, 0, 1, 1);
    ka_positioner_set_anchor(positioner, KA_POSITIONER_ANCHOR_TOP_LEFT);
    ka_positioner_set_gravity(positioner, KA_POSITIONER_GRAVITY_BOTTOM_RIGHT);
    ka_positioner_set_offset(positioner, -100000, -100000);
    ka_positioner_set_constraint_adjustment(positioner,
                                            KA_POSITIONER_CONSTRAINT_SLIDE_X | KA_POSITIONER_CONSTRAINT_SLIDE_Y);
    popup = ka_xdg_surface_get_popup(popup_xdg, NULL, positioner);
    ka_positioner_destroy(positioner);
    ka_xdg_surface_add_listener(popup_xdg, &popup_xdg_listener, parent);
    ka_xdg_popup_add_listener(popup, &popup_listener, parent);
    ka_layer_surface_get_popup(parent, popup);
    wl_surface_commit(popup_surface);
}

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *layer, uint32_t serial, uint32_t w,
                            uint32_t h) {
    (void)data;
    ka_layer_surface_ack_configure(layer, serial);
    wl_surface_commit(probe_surface);
    if (w == 0 || h == 0 || (w == width && h == height)) return;
    width = w, height = h;
    if (w == full_width && h == full_height && !once) {
        ask_again = 0;
        say("hide", 0, 0);
    } else if (w == full_width && h == full_height) {
        say("area", 0, 0);
    } else {
        query(layer);
    }
}

static void layer_closed(void *data, struct zwlr_layer_surface_v1 *layer) {
    (void)data, (void)layer;
    exit(0);
}

static const struct ka_layer_surface_listener layer_listener = {layer_configure, layer_closed};

static void ping(void *data, struct xdg_wm_base *base, uint32_t serial) {
    (void)data;
    ka_wm_base_pong(base, serial);
}

static const struct ka_wm_base_listener wm_base_listener = {ping};

static uint32_t min(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* The output's current mode: the whole output's size (scale 1, as the bench's sway has it). */
static void output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw, int32_t ph,
                            int32_t subpixel, const char *make, const char *model, int32_t transform) {
    (void)data, (void)o, (void)x, (void)y, (void)pw, (void)ph, (void)subpixel, (void)make, (void)model,
        (void)transform;
}

static void output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w, int32_t h, int32_t refresh) {
    (void)data, (void)o, (void)refresh;
    if (flags & WL_OUTPUT_MODE_CURRENT) full_width = (uint32_t)w, full_height = (uint32_t)h;
}

static void output_done(void *data, struct wl_output *o) { (void)data, (void)o; }

static void output_scale(void *data, struct wl_output *o, int32_t factor) { (void)data, (void)o, (void)factor; }

static const struct wl_output_listener output_listener = {output_geometry, output_mode, output_done, output_scale};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                   uint32_t version) {
    (void)data;
    if (strcmp(interface, "wl_compositor") == 0) {
        compositor = wl_registry_bind(registry, name, ka_wl_compositor_interface(), min(version, 4));
    } else if (strcmp(interface, "zwlr_layer_shell_v1") == 0) {
        layer_shell = wl_registry_bind(registry, name, ka_zwlr_layer_shell_v1_interface(), min(version, 4));
    } else if (strcmp(interface, "xdg_wm_base") == 0) {
        wm_base = wl_registry_bind(registry, name, ka_xdg_wm_base_interface(), min(version, 2));
        ka_wm_base_add_listener(wm_base, &wm_base_listener, NULL);
    } else if (strcmp(interface, "wl_output") == 0 && output == NULL) {
        output = wl_registry_bind(registry, name, ka_wl_output_interface(), min(version, 2));
        wl_output_add_listener(output, &output_listener, NULL);
    }
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data, (void)registry, (void)name;
}

static const struct wl_registry_listener registry_listener = {global, global_remove};

int main(int argc, char **argv) {
    once = argc > 1 && strcmp(argv[1], "--once") == 0;
    struct wl_display *display = wl_display_connect(NULL);
    if (display == NULL) {
        fprintf(stderr, "wlbare: cannot connect to the Wayland display\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (compositor == NULL || layer_shell == NULL || wm_base == NULL || output == NULL) {
        fprintf(stderr, "wlbare: the compositor lacks wl_compositor, zwlr_layer_shell_v1, xdg_wm_base or an output\n");
        return 1;
    }
    /* The output's mode comes after its bind. */
    wl_display_roundtrip(display);
    probe_surface = wl_compositor_create_surface(compositor);
    struct wl_region *region = wl_compositor_create_region(compositor);
    wl_surface_set_input_region(probe_surface, region);
    wl_region_destroy(region);
    struct zwlr_layer_surface_v1 *layer = ka_layer_shell_get_layer_surface(
        layer_shell, probe_surface, output, KA_LAYER_BACKGROUND, "keyboard-geometry-floor");
    ka_layer_surface_set_anchor(layer, KA_ANCHOR_TOP | KA_ANCHOR_BOTTOM | KA_ANCHOR_LEFT | KA_ANCHOR_RIGHT);
    ka_layer_surface_set_size(layer, 0, 0);
    ka_layer_surface_set_exclusive_zone(layer, 0);
    ka_layer_surface_set_keyboard_interactivity(layer, 0);
    ka_layer_surface_add_listener(layer, &layer_listener, NULL);
    wl_surface_commit(probe_surface);
    /* One thread, blocked in poll() between events, like the backend's loop. */
    while (!done) {
        while (wl_display_prepare_read(display) != 0) wl_display_dispatch_pending(display);
        if (wl_display_flush(display) < 0) return 1;
        struct pollfd fd = {wl_display_get_fd(display), POLLIN, 0};
        if (poll(&fd, 1, -1) < 0) {
            wl_display_cancel_read(display);
            return 1;
        }
        if (wl_display_read_events(display) < 0) return 0;
        if (wl_display_dispatch_pending(display) < 0) return 0;
    }
    wl_display_disconnect(display);
    return 0;
}
