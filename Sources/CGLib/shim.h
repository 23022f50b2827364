#ifndef KEYBOARD_ADAPTER_CGLIB_SHIM_H
#define KEYBOARD_ADAPTER_CGLIB_SHIM_H
/* GLib's main loop, with its unix descriptor and signal sources (glib-unix.h is not in glib.h). */
#include <glib.h>
#include <glib-unix.h>
#endif
