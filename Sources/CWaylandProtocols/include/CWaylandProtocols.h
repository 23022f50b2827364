#ifndef KEYBOARD_ADAPTER_CWAYLAND_PROTOCOLS_H
#define KEYBOARD_ADAPTER_CWAYLAND_PROTOCOLS_H
/*
 * Client-side interface tables and request wrappers for the parts of four protocols the Wayland
 * backend speaks: wlr-layer-shell (zwlr_layer_shell_v1 v4, zwlr_layer_surface_v1 v4), an xdg-shell
 * subset (xdg_wm_base, xdg_positioner, xdg_surface, xdg_popup, xdg_toplevel at v2), xdg-output
 * (zxdg_output_manager_v1, zxdg_output_v1 at v3) and wlr-foreign-toplevel-management
 * (zwlr_foreign_toplevel_manager_v1, zwlr_foreign_toplevel_handle_v1 at v3). Written from the
 * protocols' documented opcodes and signatures. The backend never makes a toplevel: the
 * xdg_toplevel requests serve the integration tests' own clients.
 *
 * Swift cannot call the variadic wl_proxy_marshal_flags, hence one plain function per request.
 * Swift must not take the address of an extern struct itself (it may get a temporary copy), hence
 * the accessor functions returning each interface's address.
 */
#include <stdint.h>
#include <wayland-client.h>

/* Everything here stays inside the library that links it. */
#pragma GCC visibility push(hidden)

struct zwlr_layer_shell_v1;
struct zwlr_layer_surface_v1;
struct xdg_wm_base;
struct xdg_positioner;
struct xdg_surface;
struct xdg_popup;
struct zxdg_output_manager_v1;
struct zxdg_output_v1;
struct xdg_toplevel;
struct zwlr_foreign_toplevel_manager_v1;
struct zwlr_foreign_toplevel_handle_v1;

/* Interface addresses, for wl_registry_bind and friends. */
const struct wl_interface *ka_wl_compositor_interface(void);
const struct wl_interface *ka_wl_output_interface(void);
const struct wl_interface *ka_wl_seat_interface(void);
const struct wl_interface *ka_wl_shm_interface(void);
const struct wl_interface *ka_zwlr_layer_shell_v1_interface(void);
const struct wl_interface *ka_xdg_wm_base_interface(void);
const struct wl_interface *ka_zxdg_output_manager_v1_interface(void);
const struct wl_interface *ka_zwlr_foreign_toplevel_manager_v1_interface(void);

/* Enum values used by the backend. */
enum {
    KA_LAYER_BACKGROUND = 0,
    KA_ANCHOR_TOP = 1,
    KA_ANCHOR_BOTTOM = 2,
    KA_ANCHOR_LEFT = 4,
    KA_ANCHOR_RIGHT = 8,
    KA_POSITIONER_ANCHOR_TOP_LEFT = 5,
    KA_POSITIONER_GRAVITY_BOTTOM_RIGHT = 8,
    KA_POSITIONER_CONSTRAINT_SLIDE_X = 1,
    KA_POSITIONER_CONSTRAINT_SLIDE_Y = 2,
    KA_FOREIGN_TOPLEVEL_STATE_ACTIVATED = 2,
};

/* zwlr_layer_shell_v1 */
struct zwlr_layer_surface_v1 *ka_layer_shell_get_layer_surface(struct zwlr_layer_shell_v1 *shell,
    struct wl_surface *surface, struct wl_output *output, uint32_t layer, const char *name_space);
void ka_layer_shell_destroy(struct zwlr_layer_shell_v1 *shell);

/* zwlr_layer_surface_v1 */
struct ka_layer_surface_listener {
    void (*configure)(void *data, struct zwlr_layer_surface_v1 *surface, uint32_t serial,
                      uint32_t width, uint32_t height);
    void (*closed)(void *data, struct zwlr_layer_surface_v1 *surface);
};
int ka_layer_surface_add_listener(struct zwlr_layer_surface_v1 *surface,
                                  const struct ka_layer_surface_listener *listener, void *data);
void ka_layer_surface_set_size(struct zwlr_layer_surface_v1 *surface, uint32_t width, uint32_t height);
void ka_layer_surface_set_anchor(struct zwlr_layer_surface_v1 *surface, uint32_t anchor);
void ka_layer_surface_set_exclusive_zone(struct zwlr_layer_surface_v1 *surface, int32_t zone);
void ka_layer_surface_set_keyboard_interactivity(struct zwlr_layer_surface_v1 *surface, uint32_t mode);
void ka_layer_surface_get_popup(struct zwlr_layer_surface_v1 *surface, struct xdg_popup *popup);
void ka_layer_surface_ack_configure(struct zwlr_layer_surface_v1 *surface, uint32_t serial);
void ka_layer_surface_destroy(struct zwlr_layer_surface_v1 *surface);

/* xdg_wm_base */
struct ka_wm_base_listener {
    void (*ping)(void *data, struct xdg_wm_base *base, uint32_t serial);
};
int ka_wm_base_add_listener(struct xdg_wm_base *base, const struct ka_wm_base_listener *listener, void *data);
struct xdg_positioner *ka_wm_base_create_positioner(struct xdg_wm_base *base);
struct xdg_surface *ka_wm_base_get_xdg_surface(struct xdg_wm_base *base, struct wl_surface *surface);
void ka_wm_base_pong(struct xdg_wm_base *base, uint32_t serial);
void ka_wm_base_destroy(struct xdg_wm_base *base);

/* xdg_positioner */
void ka_positioner_set_size(struct xdg_positioner *positioner, int32_t width, int32_t height);
void ka_positioner_set_anchor_rect(struct xdg_positioner *positioner, int32_t x, int32_t y,
                                   int32_t width, int32_t height);
void ka_positioner_set_anchor(struct xdg_positioner *positioner, uint32_t anchor);
void ka_positioner_set_gravity(struct xdg_positioner *positioner, uint32_t gravity);
void ka_positioner_set_constraint_adjustment(struct xdg_positioner *positioner, uint32_t adjustment);
void ka_positioner_set_offset(struct xdg_positioner *positioner, int32_t x, int32_t y);
void ka_positioner_destroy(struct xdg_positioner *positioner);

/* xdg_surface */
struct ka_xdg_surface_listener {
    void (*configure)(void *data, struct xdg_surface *surface, uint32_t serial);
};
int ka_xdg_surface_add_listener(struct xdg_surface *surface, const struct ka_xdg_surface_listener *listener,
                                void *data);
struct xdg_popup *ka_xdg_surface_get_popup(struct xdg_surface *surface, struct xdg_surface *parent,
                                           struct xdg_positioner *positioner);
struct xdg_toplevel *ka_xdg_surface_get_toplevel(struct xdg_surface *surface);
void ka_xdg_surface_ack_configure(struct xdg_surface *surface, uint32_t serial);
void ka_xdg_surface_destroy(struct xdg_surface *surface);

/* xdg_toplevel */
struct ka_xdg_toplevel_listener {
    void (*configure)(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
                      struct wl_array *states);
    void (*close)(void *data, struct xdg_toplevel *toplevel);
};
int ka_xdg_toplevel_add_listener(struct xdg_toplevel *toplevel, const struct ka_xdg_toplevel_listener *listener,
                                 void *data);
void ka_xdg_toplevel_set_title(struct xdg_toplevel *toplevel, const char *title);
void ka_xdg_toplevel_set_app_id(struct xdg_toplevel *toplevel, const char *app_id);
void ka_xdg_toplevel_destroy(struct xdg_toplevel *toplevel);

/* xdg_popup */
struct ka_xdg_popup_listener {
    void (*configure)(void *data, struct xdg_popup *popup, int32_t x, int32_t y, int32_t width, int32_t height);
    void (*popup_done)(void *data, struct xdg_popup *popup);
};
int ka_xdg_popup_add_listener(struct xdg_popup *popup, const struct ka_xdg_popup_listener *listener, void *data);
void ka_xdg_popup_destroy(struct xdg_popup *popup);

/* zxdg_output_manager_v1 */
struct zxdg_output_v1 *ka_xdg_output_manager_get_xdg_output(struct zxdg_output_manager_v1 *manager,
                                                           struct wl_output *output);
void ka_xdg_output_manager_destroy(struct zxdg_output_manager_v1 *manager);

/* zxdg_output_v1 */
struct ka_xdg_output_listener {
    void (*logical_position)(void *data, struct zxdg_output_v1 *output, int32_t x, int32_t y);
    void (*logical_size)(void *data, struct zxdg_output_v1 *output, int32_t width, int32_t height);
    void (*done)(void *data, struct zxdg_output_v1 *output);
    void (*name)(void *data, struct zxdg_output_v1 *output, const char *name);
    void (*description)(void *data, struct zxdg_output_v1 *output, const char *description);
};
int ka_xdg_output_add_listener(struct zxdg_output_v1 *output, const struct ka_xdg_output_listener *listener,
                               void *data);
void ka_xdg_output_destroy(struct zxdg_output_v1 *output);

/* zwlr_foreign_toplevel_manager_v1 */
struct ka_foreign_toplevel_manager_listener {
    void (*toplevel)(void *data, struct zwlr_foreign_toplevel_manager_v1 *manager,
                     struct zwlr_foreign_toplevel_handle_v1 *handle);
    void (*finished)(void *data, struct zwlr_foreign_toplevel_manager_v1 *manager);
};
int ka_foreign_toplevel_manager_add_listener(struct zwlr_foreign_toplevel_manager_v1 *manager,
                                             const struct ka_foreign_toplevel_manager_listener *listener,
                                             void *data);
/* Asks for no more events, then forgets the proxy: the protocol has no destructor request for it
 * (the compositor ends it with `finished`, which nobody waits for once the client is leaving). */
void ka_foreign_toplevel_manager_stop(struct zwlr_foreign_toplevel_manager_v1 *manager);

/* zwlr_foreign_toplevel_handle_v1 */
struct ka_foreign_toplevel_handle_listener {
    void (*title)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, const char *title);
    void (*app_id)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, const char *app_id);
    void (*output_enter)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, struct wl_output *output);
    void (*output_leave)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, struct wl_output *output);
    void (*state)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, struct wl_array *state);
    void (*done)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle);
    void (*closed)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle);
    void (*parent)(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle,
                   struct zwlr_foreign_toplevel_handle_v1 *parent);
};
int ka_foreign_toplevel_handle_add_listener(struct zwlr_foreign_toplevel_handle_v1 *handle,
                                            const struct ka_foreign_toplevel_handle_listener *listener, void *data);
void ka_foreign_toplevel_handle_destroy(struct zwlr_foreign_toplevel_handle_v1 *handle);

#pragma GCC visibility pop

#endif
