#include "CXkbX11.h"

#include <X11/XKBlib.h>
#include <X11/Xlib-xcb.h>
#include <xkbcommon/xkbcommon-x11.h>

int32_t ka_xkb_setup(struct _XDisplay *display, int *event_base) {
    int opcode = 0, error_base = 0, major = XkbMajorVersion, minor = XkbMinorVersion;
    if (!XkbQueryExtension(display, &opcode, event_base, &error_base, &major, &minor)) return -1;
    unsigned int events = XkbNewKeyboardNotifyMask | XkbMapNotifyMask | XkbStateNotifyMask;
    if (!XkbSelectEvents(display, XkbUseCoreKbd, events, events)) return -1;
    /* Of the state changes, only the group (the active layout) matters. */
    XkbSelectEventDetails(display, XkbUseCoreKbd, XkbStateNotify, XkbAllStateComponentsMask, XkbGroupStateMask);
    xcb_connection_t *connection = XGetXCBConnection(display);
    if (!connection) return -1;
    if (!xkb_x11_setup_xkb_extension(connection, XKB_X11_MIN_MAJOR_XKB_VERSION, XKB_X11_MIN_MINOR_XKB_VERSION,
                                     XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, NULL, NULL, NULL, NULL)) {
        return -1;
    }
    return xkb_x11_get_core_keyboard_device_id(connection);
}

struct xkb_keymap *ka_xkb_keymap(struct xkb_context *context, struct _XDisplay *display, int32_t device) {
    xcb_connection_t *connection = XGetXCBConnection(display);
    return connection ? xkb_x11_keymap_new_from_device(context, connection, device, XKB_KEYMAP_COMPILE_NO_FLAGS)
                      : NULL;
}

struct xkb_state *ka_xkb_state(struct xkb_keymap *keymap, struct _XDisplay *display, int32_t device) {
    xcb_connection_t *connection = XGetXCBConnection(display);
    return connection ? xkb_x11_state_new_from_device(keymap, connection, device) : NULL;
}

int ka_xkb_is_group_change(const void *event) {
    return ((const XkbAnyEvent *)event)->xkb_type == XkbStateNotify;
}
