#ifndef KEYBOARD_ADAPTER_CX11LOADER_LOADED_H
#define KEYBOARD_ADAPTER_CX11LOADER_LOADED_H
/* What the C files of this target share and Swift never sees: the loaded functions that only C
   calls (the XKB glue's), and the loaded state. */
#include "CX11Loader.h"

#include <X11/XKBlib.h>
#include <X11/Xlib-xcb.h>
#include <xkbcommon/xkbcommon-x11.h>

/* The XKB functions of libX11, libX11-xcb's and libxkbcommon-x11's, that xkb.c calls. */
#define KA_XKB_LIBRARY_FUNCTIONS(X)                                                                      \
    X(x11, XkbQueryExtension)                                                                            \
    X(x11, XkbSelectEvents)                                                                              \
    X(x11, XkbSelectEventDetails)                                                                        \
    X(x11xcb, XGetXCBConnection)                                                                         \
    X(xkbx11, xkb_x11_setup_xkb_extension)                                                               \
    X(xkbx11, xkb_x11_get_core_keyboard_device_id)                                                       \
    X(xkbx11, xkb_x11_keymap_new_from_device)                                                            \
    X(xkbx11, xkb_x11_state_new_from_device)

struct ka_xkb_library {
#define KA_XKB_LIBRARY_FIELD(library, name) __typeof__(name) *_Nonnull name;
    KA_XKB_LIBRARY_FUNCTIONS(KA_XKB_LIBRARY_FIELD)
#undef KA_XKB_LIBRARY_FIELD
};

/* The XKB table, or NULL when the libraries cannot be loaded (loads them first). */
__attribute__((visibility("hidden"))) const struct ka_xkb_library *_Nullable ka_xkb_library(void);

#endif
