#ifndef KEYBOARD_ADAPTER_CX11_SHIM_H
#define KEYBOARD_ADAPTER_CX11_SHIM_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#endif
