#ifndef KEYBOARD_ADAPTER_CWAYLAND_SHIM_H
#define KEYBOARD_ADAPTER_CWAYLAND_SHIM_H
#include <wayland-client.h>
#endif
