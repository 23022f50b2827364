#ifndef KEYBOARD_ADAPTER_CXRANDR_SHIM_H
#define KEYBOARD_ADAPTER_CXRANDR_SHIM_H
#include <X11/Xlib.h>
#include <X11/extensions/Xrandr.h>
#endif
