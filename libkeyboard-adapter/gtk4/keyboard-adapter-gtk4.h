/* keyboard-adapter-gtk4.h: libkeyboard-adapter-gtk4, the part of a GTK 4 window the keyboard covers. */
#pragma once

#define KEYBOARD_ADAPTER_GTK4_INSIDE

#include "ka-gtk-coverage.h"

#undef KEYBOARD_ADAPTER_GTK4_INSIDE
