#ifndef KEYBOARD_ADAPTER_CXKBX11_H
#define KEYBOARD_ADAPTER_CXKBX11_H
/*
 * The few calls that tie an Xlib connection to libxkbcommon-x11: XKB events selected through
 * Xlib (so they arrive in the connection's one event queue) and keymaps read through the same
 * connection's XCB side (XGetXCBConnection). The types stay opaque here so that Swift sees only
 * one definition of the Xlib and xkbcommon types (from CX11 and CXkbCommon).
 */
#include <stdint.h>

struct _XDisplay;
struct xkb_context;
struct xkb_keymap;
struct xkb_state;

/* Selects XKB new-keyboard, map and group-state events for the core keyboard and sets up
   xkbcommon-x11. Returns the core keyboard's device id and stores XKB's event code in
   *event_base; returns -1 when the server has no usable XKB. */
int32_t ka_xkb_setup(struct _XDisplay *display, int *event_base);

/* The core keyboard's keymap, or NULL. */
struct xkb_keymap *ka_xkb_keymap(struct xkb_context *context, struct _XDisplay *display, int32_t device);

/* The core keyboard's current state (its effective group among others), or NULL. */
struct xkb_state *ka_xkb_state(struct xkb_keymap *keymap, struct _XDisplay *display, int32_t device);

/* Whether an XKB event (an XEvent whose type is XKB's event code) reports a change of the
   active group, as opposed to a new or changed keymap. */
int ka_xkb_is_group_change(const void *event);

#endif
