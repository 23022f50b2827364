#ifndef KEYBOARD_ADAPTER_CWAYLAND_PROTOCOLS_H
#define KEYBOARD_ADAPTER_CWAYLAND_PROTOCOLS_H
/* Interface tables for the layer-shell, xdg-shell and xdg-output protocols (filled in by the Wayland backend). */
#endif
