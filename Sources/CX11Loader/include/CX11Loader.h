#ifndef KEYBOARD_ADAPTER_CX11LOADER_H
#define KEYBOARD_ADAPTER_CX11LOADER_H
/*
 * The X libraries (libX11, libX11-xcb, libXrandr, libxkbcommon-x11, libXRes), loaded when an X
 * display is first used rather than at program start, so that a process watching a Wayland session
 * never maps them. The package defines none of their functions: what the X11 backend calls is
 * reached through a table of the loaded functions (`struct ka_x11_library`) and through functions
 * named `ka_…`. A process that links the X libraries for its own use (an Xlib app) keeps calling
 * the libraries' own functions, and the table points at the same loaded copies.
 */
#include <X11/Xlib.h>
#include <X11/extensions/Xrandr.h>
#include <stdint.h>

/* The libX11 and libXrandr functions the X11 backend calls, each with the library it is looked up
   in. Every field of the table has the type of the function its header declares. */
#define KA_X11_LIBRARY_FUNCTIONS(X)                                                                      \
    X(x11, XOpenDisplay)                                                                                 \
    X(x11, XCloseDisplay)                                                                                \
    X(x11, XDisplayString)                                                                               \
    X(x11, XDefaultRootWindow)                                                                           \
    X(x11, XDefaultScreen)                                                                               \
    X(x11, XDisplayWidth)                                                                                \
    X(x11, XDisplayHeight)                                                                               \
    X(x11, XConnectionNumber)                                                                            \
    X(x11, XSetErrorHandler)                                                                             \
    X(x11, XSetIOErrorHandler)                                                                           \
    X(x11, XSetIOErrorExitHandler)                                                                       \
    X(x11, XSelectInput)                                                                                 \
    X(x11, XPending)                                                                                     \
    X(x11, XEventsQueued)                                                                                \
    X(x11, XNextRequest)                                                                                 \
    X(x11, XNextEvent)                                                                                   \
    X(x11, XFlush)                                                                                       \
    X(x11, XInternAtom)                                                                                  \
    X(x11, XGetAtomName)                                                                                 \
    X(x11, XInternAtoms)                                                                                 \
    X(x11, XFree)                                                                                        \
    X(x11, XGetWindowProperty)                                                                           \
    X(x11, XGetWindowAttributes)                                                                         \
    X(x11, XTranslateCoordinates)                                                                        \
    X(x11, XGetGeometry)                                                                                 \
    X(x11, XGetInputFocus)                                                                               \
    X(x11, XIconifyWindow)                                                                               \
    X(x11, XQueryTree)                                                                                   \
    X(xrandr, XRRQueryExtension)                                                                         \
    X(xrandr, XRRSelectInput)                                                                            \
    X(xrandr, XRRUpdateConfiguration)                                                                    \
    X(xrandr, XRRGetMonitors)                                                                            \
    X(xrandr, XRRFreeMonitors)

/* The loaded functions, under the libraries' names as fields (never as functions of this package). */
struct ka_x11_library {
#define KA_X11_LIBRARY_FIELD(library, name) __typeof__(name) *_Nonnull name;
    KA_X11_LIBRARY_FUNCTIONS(KA_X11_LIBRARY_FIELD)
#undef KA_X11_LIBRARY_FIELD
};

/* Loads the libraries (once; any thread) and returns the table, or NULL when they cannot be loaded
   (see ka_x11_library_failure). The table never changes once returned and lives as long as the
   process. */
const struct ka_x11_library *_Nullable ka_x11_library(void);

/* Why the libraries cannot be loaded (a static string), or NULL when they can. Loads them first. */
const char *_Nullable ka_x11_library_failure(void);

struct xkb_context;
struct xkb_keymap;
struct xkb_state;

/* XKB layouts on an Xlib connection, through libxkbcommon-x11. Each needs the libraries loaded
   (ka_x11_library() returned a table) and fails otherwise.
   ka_xkb_setup selects XKB new-keyboard, map and group-state events for the core keyboard (through
   Xlib, so that they arrive in the connection's one event queue) and sets up xkbcommon-x11 on the
   connection's XCB side. Returns the core keyboard's device id and stores XKB's event code in
   *event_base; returns -1 when the server has no usable XKB. */
int32_t ka_xkb_setup(Display *_Nonnull display, int *_Nonnull event_base);

/* The core keyboard's keymap, or NULL. */
struct xkb_keymap *_Nullable ka_xkb_keymap(struct xkb_context *_Nonnull context, Display *_Nonnull display,
                                           int32_t device);

/* The core keyboard's current state (its effective group among others), or NULL. */
struct xkb_state *_Nullable ka_xkb_state(struct xkb_keymap *_Nonnull keymap, Display *_Nonnull display,
                                         int32_t device);

/* Whether an XKB event (an XEvent whose type is XKB's event code) reports a change of the active
   group, as opposed to a new or changed keymap. */
int ka_xkb_is_group_change(const void *_Nonnull event);

/* Whether the server tells which process a client is (X-Resource 1.2 and libXRes.so.1 loaded).
   A round trip: asked once per connection. */
int ka_x11_knows_client_processes(Display *_Nonnull display);

/* The process of the client that created `window`, as the server knows it from the connection's
   credentials (never what the client wrote in a property); -1 when the server cannot tell (a
   remote client, no X-Resource 1.2, the window gone). A round trip. */
int ka_x11_window_process(Display *_Nonnull display, unsigned long window);

#endif
