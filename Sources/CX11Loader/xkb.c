/* XKB layouts on an Xlib connection (see CX11Loader.h): XKB events selected through Xlib, so that
   they arrive in the connection's one event queue, and keymaps read through the same connection's
   XCB side (XGetXCBConnection), every function from the loaded libraries. */
#include "loaded.h"

int32_t ka_xkb_setup(Display *display, int *event_base) {
    const struct ka_xkb_library *xkb = ka_xkb_library();
    if (xkb == NULL) return -1;
    int opcode = 0, error_base = 0, major = XkbMajorVersion, minor = XkbMinorVersion;
    if (!xkb->XkbQueryExtension(display, &opcode, event_base, &error_base, &major, &minor)) return -1;
    unsigned int events = XkbNewKeyboardNotifyMask | XkbMapNotifyMask | XkbStateNotifyMask;
    if (!xkb->XkbSelectEvents(display, XkbUseCoreKbd, events, events)) return -1;
    /* Of the state changes, only the group (the active layout) matters. */
    xkb->XkbSelectEventDetails(display, XkbUseCoreKbd, XkbStateNotify, XkbAllStateComponentsMask,
                               XkbGroupStateMask);
    xcb_connection_t *connection = xkb->XGetXCBConnection(display);
    if (!connection) return -1;
    if (!xkb->xkb_x11_setup_xkb_extension(connection, XKB_X11_MIN_MAJOR_XKB_VERSION, XKB_X11_MIN_MINOR_XKB_VERSION,
                                          XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, NULL, NULL, NULL, NULL)) {
        return -1;
    }
    return xkb->xkb_x11_get_core_keyboard_device_id(connection);
}

struct xkb_keymap *ka_xkb_keymap(struct xkb_context *context, Display *display, int32_t device) {
    const struct ka_xkb_library *xkb = ka_xkb_library();
    if (xkb == NULL) return NULL;
    xcb_connection_t *connection = xkb->XGetXCBConnection(display);
    return connection ? xkb->xkb_x11_keymap_new_from_device(context, connection, device, XKB_KEYMAP_COMPILE_NO_FLAGS)
                      : NULL;
}

struct xkb_state *ka_xkb_state(struct xkb_keymap *keymap, Display *display, int32_t device) {
    const struct ka_xkb_library *xkb = ka_xkb_library();
    if (xkb == NULL) return NULL;
    xcb_connection_t *connection = xkb->XGetXCBConnection(display);
    return connection ? xkb->xkb_x11_state_new_from_device(keymap, connection, device) : NULL;
}

int ka_xkb_is_group_change(const void *event) {
    return ((const XkbAnyEvent *)event)->xkb_type == XkbStateNotify;
}
