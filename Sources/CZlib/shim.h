#ifndef KEYBOARD_ADAPTER_CZLIB_SHIM_H
#define KEYBOARD_ADAPTER_CZLIB_SHIM_H
/* zlib: deflate and CRC-32 for the PNG files of screen captures. */
#include <zlib.h>
#endif
