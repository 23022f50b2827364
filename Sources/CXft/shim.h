#ifndef KEYBOARD_ADAPTER_CXFT_SHIM_H
#define KEYBOARD_ADAPTER_CXFT_SHIM_H
/* Xlib and Xft for the example app: anti-aliased text without a toolkit. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/Xft/Xft.h>
#endif
