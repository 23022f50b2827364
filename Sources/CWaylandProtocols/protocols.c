/*
 * Interface tables and request wrappers: see CWaylandProtocols.h.
 *
 * Each wl_message is { name, signature, types }. A signature lists the arguments in order:
 * i int, u uint, s string, o object, n new_id, a array, h fd; '?' before a letter makes it
 * nullable, and a leading number is the version that introduced the message. types holds, per
 * argument, the interface of an object or new_id argument (NULL for the others).
 *
 * The symbols are hidden so that other copies of these protocols in the same process (GTK,
 * libdecor) never interpose on ours or we on theirs; the names carry a ka_ prefix for the same
 * reason at static link time.
 */
#include "CWaylandProtocols.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define PROXY(p) ((struct wl_proxy *)(p))
#define VERSION(p) wl_proxy_get_version(PROXY(p))

HIDDEN extern const struct wl_interface ka_zwlr_layer_shell_v1;
HIDDEN extern const struct wl_interface ka_zwlr_layer_surface_v1;
HIDDEN extern const struct wl_interface ka_xdg_wm_base;
HIDDEN extern const struct wl_interface ka_xdg_positioner;
HIDDEN extern const struct wl_interface ka_xdg_surface;
HIDDEN extern const struct wl_interface ka_xdg_popup;
HIDDEN extern const struct wl_interface ka_zxdg_output_manager_v1;
HIDDEN extern const struct wl_interface ka_zxdg_output_v1;
HIDDEN extern const struct wl_interface ka_xdg_toplevel;
HIDDEN extern const struct wl_interface ka_zwlr_foreign_toplevel_manager_v1;
HIDDEN extern const struct wl_interface ka_zwlr_foreign_toplevel_handle_v1;

/* Enough NULLs for the longest argument list whose arguments are all plain values. */
static const struct wl_interface *plain[] = { NULL, NULL, NULL, NULL };

/* ---- zwlr_layer_shell_v1, version 4 ---- */

static const struct wl_interface *get_layer_surface_types[] = {
    &ka_zwlr_layer_surface_v1, &wl_surface_interface, &wl_output_interface, NULL, NULL };

static const struct wl_message layer_shell_requests[] = {
    { "get_layer_surface", "no?ous", get_layer_surface_types },  /* 0 */
    { "destroy", "3", plain },                                   /* 1 */
};

HIDDEN const struct wl_interface ka_zwlr_layer_shell_v1 = {
    "zwlr_layer_shell_v1", 4, 2, layer_shell_requests, 0, NULL };

/* ---- zwlr_layer_surface_v1, version 4 ---- */

static const struct wl_interface *layer_get_popup_types[] = { &ka_xdg_popup };

static const struct wl_message layer_surface_requests[] = {
    { "set_size", "uu", plain },                      /* 0 */
    { "set_anchor", "u", plain },                     /* 1 */
    { "set_exclusive_zone", "i", plain },             /* 2 */
    { "set_margin", "iiii", plain },                  /* 3 */
    { "set_keyboard_interactivity", "u", plain },     /* 4 */
    { "get_popup", "o", layer_get_popup_types },      /* 5 */
    { "ack_configure", "u", plain },                  /* 6 */
    { "destroy", "", plain },                         /* 7 */
    { "set_layer", "2u", plain },                     /* 8 */
};

static const struct wl_message layer_surface_events[] = {
    { "configure", "uuu", plain },                    /* 0 */
    { "closed", "", plain },                          /* 1 */
};

HIDDEN const struct wl_interface ka_zwlr_layer_surface_v1 = {
    "zwlr_layer_surface_v1", 4, 9, layer_surface_requests, 2, layer_surface_events };

/* ---- xdg_wm_base and friends, version 2 ---- */

static const struct wl_interface *create_positioner_types[] = { &ka_xdg_positioner };
static const struct wl_interface *get_xdg_surface_types[] = { &ka_xdg_surface, &wl_surface_interface };

static const struct wl_message wm_base_requests[] = {
    { "destroy", "", plain },                                   /* 0 */
    { "create_positioner", "n", create_positioner_types },      /* 1 */
    { "get_xdg_surface", "no", get_xdg_surface_types },         /* 2 */
    { "pong", "u", plain },                                     /* 3 */
};

static const struct wl_message wm_base_events[] = {
    { "ping", "u", plain },                                     /* 0 */
};

HIDDEN const struct wl_interface ka_xdg_wm_base = { "xdg_wm_base", 2, 4, wm_base_requests, 1, wm_base_events };

static const struct wl_message positioner_requests[] = {
    { "destroy", "", plain },                         /* 0 */
    { "set_size", "ii", plain },                      /* 1 */
    { "set_anchor_rect", "iiii", plain },             /* 2 */
    { "set_anchor", "u", plain },                     /* 3 */
    { "set_gravity", "u", plain },                    /* 4 */
    { "set_constraint_adjustment", "u", plain },      /* 5 */
    { "set_offset", "ii", plain },                    /* 6 */
};

HIDDEN const struct wl_interface ka_xdg_positioner = { "xdg_positioner", 2, 7, positioner_requests, 0, NULL };

static const struct wl_interface *get_toplevel_types[] = { &ka_xdg_toplevel };
static const struct wl_interface *xdg_get_popup_types[] = { &ka_xdg_popup, &ka_xdg_surface, &ka_xdg_positioner };

static const struct wl_message xdg_surface_requests[] = {
    { "destroy", "", plain },                               /* 0 */
    { "get_toplevel", "n", get_toplevel_types },            /* 1 */
    { "get_popup", "n?oo", xdg_get_popup_types },           /* 2 */
    { "set_window_geometry", "iiii", plain },               /* 3 */
    { "ack_configure", "u", plain },                        /* 4 */
};

static const struct wl_message xdg_surface_events[] = {
    { "configure", "u", plain },                            /* 0 */
};

HIDDEN const struct wl_interface ka_xdg_surface = {
    "xdg_surface", 2, 5, xdg_surface_requests, 1, xdg_surface_events };

/* The backend makes no toplevel; the integration tests' clients do. */
static const struct wl_interface *set_parent_types[] = { &ka_xdg_toplevel };
static const struct wl_interface *show_window_menu_types[] = { &wl_seat_interface, NULL, NULL, NULL };
static const struct wl_interface *move_types[] = { &wl_seat_interface, NULL };
static const struct wl_interface *resize_types[] = { &wl_seat_interface, NULL, NULL };
static const struct wl_interface *set_fullscreen_types[] = { &wl_output_interface };

static const struct wl_message toplevel_requests[] = {
    { "destroy", "", plain },                               /* 0 */
    { "set_parent", "?o", set_parent_types },               /* 1 */
    { "set_title", "s", plain },                            /* 2 */
    { "set_app_id", "s", plain },                           /* 3 */
    { "show_window_menu", "ouii", show_window_menu_types }, /* 4 */
    { "move", "ou", move_types },                           /* 5 */
    { "resize", "ouu", resize_types },                      /* 6 */
    { "set_max_size", "ii", plain },                        /* 7 */
    { "set_min_size", "ii", plain },                        /* 8 */
    { "set_maximized", "", plain },                         /* 9 */
    { "unset_maximized", "", plain },                       /* 10 */
    { "set_fullscreen", "?o", set_fullscreen_types },       /* 11 */
    { "unset_fullscreen", "", plain },                      /* 12 */
    { "set_minimized", "", plain },                         /* 13 */
};

static const struct wl_message toplevel_events[] = {
    { "configure", "iia", plain },                          /* 0 */
    { "close", "", plain },                                 /* 1 */
};

HIDDEN const struct wl_interface ka_xdg_toplevel = {
    "xdg_toplevel", 2, 14, toplevel_requests, 2, toplevel_events };

static const struct wl_interface *grab_types[] = { &wl_seat_interface, NULL };

static const struct wl_message popup_requests[] = {
    { "destroy", "", plain },                         /* 0 */
    { "grab", "ou", grab_types },                     /* 1 */
};

static const struct wl_message popup_events[] = {
    { "configure", "iiii", plain },                   /* 0 */
    { "popup_done", "", plain },                      /* 1 */
};

HIDDEN const struct wl_interface ka_xdg_popup = { "xdg_popup", 2, 2, popup_requests, 2, popup_events };

/* ---- zxdg_output_manager_v1 and zxdg_output_v1, version 3 ---- */

static const struct wl_interface *get_xdg_output_types[] = { &ka_zxdg_output_v1, &wl_output_interface };

static const struct wl_message output_manager_requests[] = {
    { "destroy", "", plain },                                   /* 0 */
    { "get_xdg_output", "no", get_xdg_output_types },           /* 1 */
};

HIDDEN const struct wl_interface ka_zxdg_output_manager_v1 = {
    "zxdg_output_manager_v1", 3, 2, output_manager_requests, 0, NULL };

static const struct wl_message xdg_output_requests[] = {
    { "destroy", "", plain },                         /* 0 */
};

static const struct wl_message xdg_output_events[] = {
    { "logical_position", "ii", plain },              /* 0 */
    { "logical_size", "ii", plain },                  /* 1 */
    { "done", "", plain },                            /* 2 */
    { "name", "2s", plain },                          /* 3 */
    { "description", "2s", plain },                   /* 4 */
};

HIDDEN const struct wl_interface ka_zxdg_output_v1 = {
    "zxdg_output_v1", 3, 1, xdg_output_requests, 5, xdg_output_events };

/* ---- zwlr_foreign_toplevel_manager_v1 and zwlr_foreign_toplevel_handle_v1, version 3 ---- */

static const struct wl_interface *toplevel_created_types[] = { &ka_zwlr_foreign_toplevel_handle_v1 };

static const struct wl_message foreign_manager_requests[] = {
    { "stop", "", plain },                                  /* 0 */
};

static const struct wl_message foreign_manager_events[] = {
    { "toplevel", "n", toplevel_created_types },            /* 0 */
    { "finished", "", plain },                              /* 1 */
};

HIDDEN const struct wl_interface ka_zwlr_foreign_toplevel_manager_v1 = {
    "zwlr_foreign_toplevel_manager_v1", 3, 1, foreign_manager_requests, 2, foreign_manager_events };

static const struct wl_interface *handle_seat_types[] = { &wl_seat_interface };
static const struct wl_interface *handle_rectangle_types[] = { &wl_surface_interface, NULL, NULL, NULL, NULL };
static const struct wl_interface *handle_output_types[] = { &wl_output_interface };
static const struct wl_interface *handle_parent_types[] = { &ka_zwlr_foreign_toplevel_handle_v1 };

static const struct wl_message foreign_handle_requests[] = {
    { "set_maximized", "", plain },                         /* 0 */
    { "unset_maximized", "", plain },                       /* 1 */
    { "set_minimized", "", plain },                         /* 2 */
    { "unset_minimized", "", plain },                       /* 3 */
    { "activate", "o", handle_seat_types },                 /* 4 */
    { "close", "", plain },                                 /* 5 */
    { "set_rectangle", "?oiiii", handle_rectangle_types },  /* 6 */
    { "destroy", "", plain },                               /* 7 */
    { "set_fullscreen", "2?o", handle_output_types },       /* 8 */
    { "unset_fullscreen", "2", plain },                     /* 9 */
};

static const struct wl_message foreign_handle_events[] = {
    { "title", "s", plain },                                /* 0 */
    { "app_id", "s", plain },                               /* 1 */
    { "output_enter", "o", handle_output_types },           /* 2 */
    { "output_leave", "o", handle_output_types },           /* 3 */
    { "state", "a", plain },                                /* 4 */
    { "done", "", plain },                                  /* 5 */
    { "closed", "", plain },                                /* 6 */
    { "parent", "3?o", handle_parent_types },               /* 7 */
};

HIDDEN const struct wl_interface ka_zwlr_foreign_toplevel_handle_v1 = {
    "zwlr_foreign_toplevel_handle_v1", 3, 10, foreign_handle_requests, 8, foreign_handle_events };

/* ---- accessors ---- */

const struct wl_interface *ka_wl_compositor_interface(void) { return &wl_compositor_interface; }
const struct wl_interface *ka_wl_output_interface(void) { return &wl_output_interface; }
const struct wl_interface *ka_wl_seat_interface(void) { return &wl_seat_interface; }
const struct wl_interface *ka_wl_shm_interface(void) { return &wl_shm_interface; }
const struct wl_interface *ka_zwlr_layer_shell_v1_interface(void) { return &ka_zwlr_layer_shell_v1; }
const struct wl_interface *ka_xdg_wm_base_interface(void) { return &ka_xdg_wm_base; }
const struct wl_interface *ka_zxdg_output_manager_v1_interface(void) { return &ka_zxdg_output_manager_v1; }
const struct wl_interface *ka_zwlr_foreign_toplevel_manager_v1_interface(void) {
    return &ka_zwlr_foreign_toplevel_manager_v1;
}

/* ---- request wrappers ---- */

/* A request with no new object. */
#define SEND(p, opcode, ...) \
    wl_proxy_marshal_flags(PROXY(p), opcode, NULL, VERSION(p), 0, ##__VA_ARGS__)
/* A destructor request: libwayland destroys the proxy after sending. */
#define SEND_DESTROY(p, opcode) \
    wl_proxy_marshal_flags(PROXY(p), opcode, NULL, VERSION(p), WL_MARSHAL_FLAG_DESTROY)
/* A request creating an object of interface iface; NULL stands for the new_id argument. */
#define CREATE(p, opcode, iface, ...) \
    wl_proxy_marshal_flags(PROXY(p), opcode, &iface, VERSION(p), 0, NULL, ##__VA_ARGS__)

struct zwlr_layer_surface_v1 *ka_layer_shell_get_layer_surface(struct zwlr_layer_shell_v1 *shell,
    struct wl_surface *surface, struct wl_output *output, uint32_t layer, const char *name_space) {
    return (struct zwlr_layer_surface_v1 *)CREATE(shell, 0, ka_zwlr_layer_surface_v1, surface, output, layer,
                                                  name_space);
}

void ka_layer_shell_destroy(struct zwlr_layer_shell_v1 *shell) {
    if (VERSION(shell) >= 3) SEND_DESTROY(shell, 1);
    else wl_proxy_destroy(PROXY(shell));
}

int ka_layer_surface_add_listener(struct zwlr_layer_surface_v1 *surface,
                                  const struct ka_layer_surface_listener *listener, void *data) {
    return wl_proxy_add_listener(PROXY(surface), (void (**)(void))listener, data);
}
void ka_layer_surface_set_size(struct zwlr_layer_surface_v1 *s, uint32_t w, uint32_t h) { SEND(s, 0, w, h); }
void ka_layer_surface_set_anchor(struct zwlr_layer_surface_v1 *s, uint32_t anchor) { SEND(s, 1, anchor); }
void ka_layer_surface_set_exclusive_zone(struct zwlr_layer_surface_v1 *s, int32_t zone) { SEND(s, 2, zone); }
void ka_layer_surface_set_keyboard_interactivity(struct zwlr_layer_surface_v1 *s, uint32_t mode) {
    SEND(s, 4, mode);
}
void ka_layer_surface_get_popup(struct zwlr_layer_surface_v1 *s, struct xdg_popup *popup) { SEND(s, 5, popup); }
void ka_layer_surface_ack_configure(struct zwlr_layer_surface_v1 *s, uint32_t serial) { SEND(s, 6, serial); }
void ka_layer_surface_destroy(struct zwlr_layer_surface_v1 *s) { SEND_DESTROY(s, 7); }

int ka_wm_base_add_listener(struct xdg_wm_base *base, const struct ka_wm_base_listener *listener, void *data) {
    return wl_proxy_add_listener(PROXY(base), (void (**)(void))listener, data);
}
struct xdg_positioner *ka_wm_base_create_positioner(struct xdg_wm_base *base) {
    return (struct xdg_positioner *)CREATE(base, 1, ka_xdg_positioner);
}
struct xdg_surface *ka_wm_base_get_xdg_surface(struct xdg_wm_base *base, struct wl_surface *surface) {
    return (struct xdg_surface *)CREATE(base, 2, ka_xdg_surface, surface);
}
void ka_wm_base_pong(struct xdg_wm_base *base, uint32_t serial) { SEND(base, 3, serial); }
void ka_wm_base_destroy(struct xdg_wm_base *base) { SEND_DESTROY(base, 0); }

void ka_positioner_set_size(struct xdg_positioner *p, int32_t w, int32_t h) { SEND(p, 1, w, h); }
void ka_positioner_set_anchor_rect(struct xdg_positioner *p, int32_t x, int32_t y, int32_t w, int32_t h) {
    SEND(p, 2, x, y, w, h);
}
void ka_positioner_set_anchor(struct xdg_positioner *p, uint32_t anchor) { SEND(p, 3, anchor); }
void ka_positioner_set_gravity(struct xdg_positioner *p, uint32_t gravity) { SEND(p, 4, gravity); }
void ka_positioner_set_constraint_adjustment(struct xdg_positioner *p, uint32_t adjustment) {
    SEND(p, 5, adjustment);
}
void ka_positioner_set_offset(struct xdg_positioner *p, int32_t x, int32_t y) { SEND(p, 6, x, y); }
void ka_positioner_destroy(struct xdg_positioner *p) { SEND_DESTROY(p, 0); }

int ka_xdg_surface_add_listener(struct xdg_surface *surface, const struct ka_xdg_surface_listener *listener,
                                void *data) {
    return wl_proxy_add_listener(PROXY(surface), (void (**)(void))listener, data);
}
struct xdg_popup *ka_xdg_surface_get_popup(struct xdg_surface *surface, struct xdg_surface *parent,
                                           struct xdg_positioner *positioner) {
    return (struct xdg_popup *)CREATE(surface, 2, ka_xdg_popup, parent, positioner);
}
struct xdg_toplevel *ka_xdg_surface_get_toplevel(struct xdg_surface *surface) {
    return (struct xdg_toplevel *)CREATE(surface, 1, ka_xdg_toplevel);
}
void ka_xdg_surface_ack_configure(struct xdg_surface *surface, uint32_t serial) { SEND(surface, 4, serial); }
void ka_xdg_surface_destroy(struct xdg_surface *surface) { SEND_DESTROY(surface, 0); }

int ka_xdg_toplevel_add_listener(struct xdg_toplevel *toplevel, const struct ka_xdg_toplevel_listener *listener,
                                 void *data) {
    return wl_proxy_add_listener(PROXY(toplevel), (void (**)(void))listener, data);
}
void ka_xdg_toplevel_set_title(struct xdg_toplevel *t, const char *title) { SEND(t, 2, title); }
void ka_xdg_toplevel_set_app_id(struct xdg_toplevel *t, const char *app_id) { SEND(t, 3, app_id); }
void ka_xdg_toplevel_destroy(struct xdg_toplevel *t) { SEND_DESTROY(t, 0); }

int ka_xdg_popup_add_listener(struct xdg_popup *popup, const struct ka_xdg_popup_listener *listener, void *data) {
    return wl_proxy_add_listener(PROXY(popup), (void (**)(void))listener, data);
}
void ka_xdg_popup_destroy(struct xdg_popup *popup) { SEND_DESTROY(popup, 0); }

struct zxdg_output_v1 *ka_xdg_output_manager_get_xdg_output(struct zxdg_output_manager_v1 *manager,
                                                           struct wl_output *output) {
    return (struct zxdg_output_v1 *)CREATE(manager, 1, ka_zxdg_output_v1, output);
}
void ka_xdg_output_manager_destroy(struct zxdg_output_manager_v1 *manager) { SEND_DESTROY(manager, 0); }

int ka_xdg_output_add_listener(struct zxdg_output_v1 *output, const struct ka_xdg_output_listener *listener,
                               void *data) {
    return wl_proxy_add_listener(PROXY(output), (void (**)(void))listener, data);
}
void ka_xdg_output_destroy(struct zxdg_output_v1 *output) { SEND_DESTROY(output, 0); }

int ka_foreign_toplevel_manager_add_listener(struct zwlr_foreign_toplevel_manager_v1 *manager,
                                             const struct ka_foreign_toplevel_manager_listener *listener,
                                             void *data) {
    return wl_proxy_add_listener(PROXY(manager), (void (**)(void))listener, data);
}
void ka_foreign_toplevel_manager_stop(struct zwlr_foreign_toplevel_manager_v1 *manager) {
    SEND(manager, 0);
    wl_proxy_destroy(PROXY(manager));
}

int ka_foreign_toplevel_handle_add_listener(struct zwlr_foreign_toplevel_handle_v1 *handle,
                                            const struct ka_foreign_toplevel_handle_listener *listener, void *data) {
    return wl_proxy_add_listener(PROXY(handle), (void (**)(void))listener, data);
}
void ka_foreign_toplevel_handle_destroy(struct zwlr_foreign_toplevel_handle_v1 *handle) { SEND_DESTROY(handle, 7); }
