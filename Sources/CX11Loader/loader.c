/* The X libraries, loaded at their first use (see CX11Loader.h). Each function below has the
   prototype its header declares, so the compiler checks that what is forwarded matches. */
#include "CX11Loader.h"

#include <X11/XKBlib.h>
#include <X11/Xlib-xcb.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xrandr.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <xkbcommon/xkbcommon-x11.h>

/* library, return type, name, parameters, arguments, what it returns when nothing is loaded */
#define KA_X11_FUNCTIONS(X)                                                                                \
    X(x11, Display *, XOpenDisplay, (_Xconst char *name), (name), NULL)                                    \
    X(x11, int, XCloseDisplay, (Display *display), (display), 0)                                           \
    X(x11, char *, XDisplayString, (Display *display), (display), NULL)                                    \
    X(x11, Window, XDefaultRootWindow, (Display *display), (display), 0)                                   \
    X(x11, int, XDefaultScreen, (Display *display), (display), 0)                                          \
    X(x11, int, XDisplayWidth, (Display *display, int screen), (display, screen), 0)                       \
    X(x11, int, XDisplayHeight, (Display *display, int screen), (display, screen), 0)                      \
    X(x11, int, XConnectionNumber, (Display *display), (display), -1)                                      \
    X(x11, XErrorHandler, XSetErrorHandler, (XErrorHandler handler), (handler), NULL)                      \
    X(x11, XIOErrorHandler, XSetIOErrorHandler, (XIOErrorHandler handler), (handler), NULL)                \
    X(x11, int, XSelectInput, (Display *display, Window window, long mask), (display, window, mask), 0)    \
    X(x11, int, XPending, (Display *display), (display), 0)                                                \
    X(x11, int, XEventsQueued, (Display *display, int mode), (display, mode), 0)                           \
    X(x11, unsigned long, XNextRequest, (Display *display), (display), 0)                                  \
    X(x11, int, XNextEvent, (Display *display, XEvent *event), (display, event), 0)                        \
    X(x11, int, XFlush, (Display *display), (display), 0)                                                  \
    X(x11, Atom, XInternAtom, (Display *display, _Xconst char *name, Bool only_if_exists),                 \
      (display, name, only_if_exists), 0)                                                                  \
    X(x11, char *, XGetAtomName, (Display *display, Atom atom), (display, atom), NULL)                     \
    X(x11, Status, XInternAtoms, (Display *display, char **names, int count, Bool only_if_exists, Atom *atoms), \
      (display, names, count, only_if_exists, atoms), 0)                                                  \
    X(x11, int, XFree, (void *data), (data), 0)                                                            \
    X(x11, int, XGetWindowProperty,                                                                        \
      (Display *display, Window window, Atom property, long offset, long length, Bool delete_,             \
       Atom requested, Atom *type, int *format, unsigned long *count, unsigned long *after,                \
       unsigned char **data),                                                                              \
      (display, window, property, offset, length, delete_, requested, type, format, count, after, data),   \
      BadImplementation)                                                                                   \
    X(x11, Status, XGetWindowAttributes, (Display *display, Window window, XWindowAttributes *attributes), \
      (display, window, attributes), 0)                                                                    \
    X(x11, Bool, XTranslateCoordinates,                                                                    \
      (Display *display, Window from, Window to, int x, int y, int *to_x, int *to_y, Window *child),       \
      (display, from, to, x, y, to_x, to_y, child), False)                                                 \
    X(x11, Status, XGetGeometry,                                                                           \
      (Display *display, Drawable drawable, Window *root, int *x, int *y, unsigned int *width,             \
       unsigned int *height, unsigned int *border, unsigned int *depth),                                   \
      (display, drawable, root, x, y, width, height, border, depth), 0)                                    \
    X(x11, int, XGetInputFocus, (Display *display, Window *focus, int *revert), (display, focus, revert), 0) \
    X(x11, Status, XIconifyWindow, (Display *display, Window window, int screen), (display, window, screen), 0) \
    X(x11, Status, XQueryTree,                                                                             \
      (Display *display, Window window, Window *root, Window *parent, Window **children,                   \
       unsigned int *count),                                                                               \
      (display, window, root, parent, children, count), 0)                                                 \
    X(x11, Bool, XkbQueryExtension,                                                                        \
      (Display *display, int *opcode, int *event_base, int *error_base, int *major, int *minor),           \
      (display, opcode, event_base, error_base, major, minor), False)                                      \
    X(x11, Bool, XkbSelectEvents,                                                                          \
      (Display *display, unsigned int device, unsigned int affect, unsigned int values),                   \
      (display, device, affect, values), False)                                                            \
    X(x11, Bool, XkbSelectEventDetails,                                                                    \
      (Display *display, unsigned int device, unsigned int event, unsigned long affect,                    \
       unsigned long details),                                                                             \
      (display, device, event, affect, details), False)                                                    \
    X(x11xcb, xcb_connection_t *, XGetXCBConnection, (Display *display), (display), NULL)                  \
    X(xrandr, Bool, XRRQueryExtension, (Display *display, int *event_base, int *error_base),              \
      (display, event_base, error_base), False)                                                            \
    X(xrandr, int, XRRUpdateConfiguration, (XEvent *event), (event), 0)                                    \
    X(xrandr, XRRMonitorInfo *, XRRGetMonitors, (Display *display, Window window, Bool active, int *count), \
      (display, window, active, count), NULL)                                                              \
    X(xkbx11, int, xkb_x11_setup_xkb_extension,                                                            \
      (xcb_connection_t * connection, uint16_t major, uint16_t minor,                                      \
       enum xkb_x11_setup_xkb_extension_flags flags, uint16_t *major_out, uint16_t *minor_out,             \
       uint8_t *base_event, uint8_t *base_error),                                                          \
      (connection, major, minor, flags, major_out, minor_out, base_event, base_error), 0)                  \
    X(xkbx11, int32_t, xkb_x11_get_core_keyboard_device_id, (xcb_connection_t * connection), (connection), -1) \
    X(xkbx11, struct xkb_keymap *, xkb_x11_keymap_new_from_device,                                         \
      (struct xkb_context * context, xcb_connection_t * connection, int32_t device,                        \
       enum xkb_keymap_compile_flags flags),                                                               \
      (context, connection, device, flags), NULL)                                                          \
    X(xkbx11, struct xkb_state *, xkb_x11_state_new_from_device,                                           \
      (struct xkb_keymap * keymap, xcb_connection_t * connection, int32_t device),                         \
      (keymap, connection, device), NULL)

/* Those that return nothing. */
#define KA_X11_PROCEDURES(X)                                                                               \
    X(x11, XSetIOErrorExitHandler, (Display *display, XIOErrorExitHandler handler, void *context),         \
      (display, handler, context))                                                                         \
    X(xrandr, XRRSelectInput, (Display *display, Window window, int mask), (display, window, mask))        \
    X(xrandr, XRRFreeMonitors, (XRRMonitorInfo *monitors), (monitors))

#define KA_POINTER(library, type, name, parameters, arguments, fallback) static type(*loaded_##name) parameters;
#define KA_PROCEDURE_POINTER(library, name, parameters, arguments) static void(*loaded_##name) parameters;
KA_X11_FUNCTIONS(KA_POINTER)
KA_X11_PROCEDURES(KA_PROCEDURE_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[320];

static const char *const names[] = {"libX11.so.6", "libX11-xcb.so.1", "libXrandr.so.2", "libxkbcommon-x11.so.0"};
enum { x11, x11xcb, xrandr, xkbx11 };

static void load(void) {
    void *libraries[4];
    for (int index = 0; index < 4; index++) {
        /* RTLD_GLOBAL: the libraries' own dependencies among themselves resolve as when linked. */
        libraries[index] = dlopen(names[index], RTLD_NOW | RTLD_GLOBAL);
        if (libraries[index] == NULL) {
            const char *reason = dlerror();
            snprintf(failure, sizeof failure, "%s", reason ? reason : names[index]);
            return;
        }
    }
#define KA_RESOLVE(library, type, name, parameters, arguments, fallback)                                  \
    *(void **)(&loaded_##name) = dlsym(libraries[library], #name);                                         \
    if (loaded_##name == NULL) {                                                                           \
        snprintf(failure, sizeof failure, "%s lacks %s", names[library], #name);                          \
        return;                                                                                            \
    }
#define KA_RESOLVE_PROCEDURE(library, name, parameters, arguments)                                         \
    KA_RESOLVE(library, void, name, parameters, arguments, 0)
    KA_X11_FUNCTIONS(KA_RESOLVE)
    KA_X11_PROCEDURES(KA_RESOLVE_PROCEDURE)
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

const char *ka_x11_library_failure(void) {
    pthread_once(&once, load);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) ? NULL : failure;
}

/* The pointers are set before `loaded`, and read only after it was seen set. */
static inline int ready(void) {
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) || ka_x11_library_failure() == NULL;
}

#define KA_FORWARD(library, type, name, parameters, arguments, fallback)                                  \
    type name parameters {                                                                                 \
        if (!ready()) return fallback;                                                                     \
        return loaded_##name arguments;                                                                    \
    }
#define KA_FORWARD_PROCEDURE(library, name, parameters, arguments)                                         \
    void name parameters {                                                                                 \
        if (!ready()) return;                                                                              \
        loaded_##name arguments;                                                                           \
    }
KA_X11_FUNCTIONS(KA_FORWARD)
KA_X11_PROCEDURES(KA_FORWARD_PROCEDURE)
