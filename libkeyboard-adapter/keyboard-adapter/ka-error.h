/* ka-error.h: the errors of libkeyboard-adapter. */
#pragma once

#if !defined(KEYBOARD_ADAPTER_INSIDE) && !defined(KEYBOARD_ADAPTER_COMPILATION)
#error "Only <keyboard-adapter.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * KA_ERROR:

 * The error domain of libkeyboard-adapter: its codes are #KaError.
 */
#define KA_ERROR (ka_error_quark ())

/**
 * KaError:
 * @KA_ERROR_FAILED: the service or the keyboard failed; the message gives the reason
 *   (`org.keyboardadapter.Watcher2.Error.Failed`, and any other failure of a call)
 * @KA_ERROR_NOT_VISIBLE: no keyboard is visible to hide
 *   (`org.keyboardadapter.Watcher2.Error.NotVisible`)
 * @KA_ERROR_UNSUPPORTED: the keyboard cannot be shown or hidden this way
 *   (`org.keyboardadapter.Watcher2.Error.Unsupported`)
 * @KA_ERROR_LIMITS_EXCEEDED: the service has as many subscribers as it takes
 *   (`org.keyboardadapter.Watcher2.Error.LimitsExceeded`)
 * @KA_ERROR_NO_DISPLAY: the service was started with no display server it can reach;
 *   the message gives the fix (`org.keyboardadapter.Watcher2.Error.NoDisplay`)
 * @KA_ERROR_SERVICE_UNKNOWN: the session bus knows no `org.keyboardadapter.Watcher`:
 *   kbwatch is not installed, and nobody runs `kbwatch --serve`
 * @KA_ERROR_NO_BUS: there is no session bus to connect to

 * What went wrong, in the domain %KA_ERROR. The service's own errors
 * (`org.keyboardadapter.Watcher2.Error.*`) arrive as these codes, with the service's
 * message.
 */
typedef enum {
  KA_ERROR_FAILED,
  KA_ERROR_NOT_VISIBLE,
  KA_ERROR_UNSUPPORTED,
  KA_ERROR_LIMITS_EXCEEDED,
  KA_ERROR_NO_DISPLAY,
  KA_ERROR_SERVICE_UNKNOWN,
  KA_ERROR_NO_BUS,
} KaError;

GQuark ka_error_quark (void);

G_END_DECLS
