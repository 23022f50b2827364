#ifndef KEYBOARD_ADAPTER_CX11LOADER_H
#define KEYBOARD_ADAPTER_CX11LOADER_H
/*
 * The X libraries (libX11, libX11-xcb, libXrandr, libxkbcommon-x11), loaded when an X display is
 * first used rather than at program start. Every Xlib, RandR and xkbcommon-x11 function the X11
 * backend calls is defined by this target with the library's own prototype and forwards to the
 * loaded library, so nothing links the X libraries: a process watching a Wayland session never
 * maps them (about 0.8 MiB resident), and one that links them for its own use (an Xlib app) goes
 * on using the same loaded copies.
 */

/* Loads the libraries (once; any thread): NULL when they can be used, else the reason (a static
   string). Every forwarded function loads them first; before they are loaded, or when they
   cannot be, each returns its failure value (NULL, 0, False). */
const char *ka_x11_library_failure(void);

/* An Xlib Display, named without Xlib's header (which the CX11 module brings to Swift). */
struct _XDisplay;

/* Whether the server tells which process a client is (X-Resource 1.2 and libXRes.so.1 loaded).
   A round trip: asked once per connection. */
int ka_x11_knows_client_processes(struct _XDisplay *display);

/* The process of the client that created `window`, as the server knows it from the connection's
   credentials (never what the client wrote in a property); -1 when the server cannot tell (a
   remote client, no X-Resource 1.2, the window gone). A round trip. */
int ka_x11_window_process(struct _XDisplay *display, unsigned long window);

#endif
