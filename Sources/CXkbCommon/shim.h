#ifndef KEYBOARD_ADAPTER_CXKBCOMMON_SHIM_H
#define KEYBOARD_ADAPTER_CXKBCOMMON_SHIM_H
#include <xkbcommon/xkbcommon.h>
#endif
