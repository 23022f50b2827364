/* keyboard-adapter.h: libkeyboard-adapter, where the on-screen keyboard is, for GLib apps. */
#pragma once

#define KEYBOARD_ADAPTER_INSIDE

#include "ka-enum-types.h"
#include "ka-error.h"
#include "ka-rect.h"
#include "ka-types.h"
#include "ka-update.h"
#include "ka-watcher.h"

#undef KEYBOARD_ADAPTER_INSIDE
