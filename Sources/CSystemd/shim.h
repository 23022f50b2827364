#ifndef KEYBOARD_ADAPTER_CSYSTEMD_SHIM_H
#define KEYBOARD_ADAPTER_CSYSTEMD_SHIM_H
#include <systemd/sd-bus.h>
#endif
