/* ka-types.h: the enumerations of libkeyboard-adapter. */
#pragma once

#if !defined(KEYBOARD_ADAPTER_INSIDE) && !defined(KEYBOARD_ADAPTER_COMPILATION)
#error "Only <keyboard-adapter.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * KaEventKind:
 * @KA_EVENT_KIND_WILL_SHOW: a keyboard is about to appear (or has begun to)
 * @KA_EVENT_KIND_DID_SHOW: a keyboard has come to rest on screen
 * @KA_EVENT_KIND_WILL_HIDE: a keyboard is about to leave the screen
 * @KA_EVENT_KIND_DID_HIDE: a keyboard has left the screen
 * @KA_EVENT_KIND_WILL_CHANGE_FRAME: a visible keyboard is about to move or resize
 * @KA_EVENT_KIND_DID_CHANGE_FRAME: a visible keyboard has moved or resized

 * The six events of a keyboard, as the session service names them (`willShow`, ...).
 */
typedef enum {
  KA_EVENT_KIND_WILL_SHOW,
  KA_EVENT_KIND_DID_SHOW,
  KA_EVENT_KIND_WILL_HIDE,
  KA_EVENT_KIND_DID_HIDE,
  KA_EVENT_KIND_WILL_CHANGE_FRAME,
  KA_EVENT_KIND_DID_CHANGE_FRAME,
} KaEventKind;

/**
 * KaLocal:
 * @KA_LOCAL_UNKNOWN: nobody can tell (the service could not judge, or the event
 *   came from before the subscription)
 * @KA_LOCAL_TRUE: the keyboard came up for one of the app's own windows
 * @KA_LOCAL_FALSE: the keyboard came up for another app's window

 * Whether a keyboard came up for the app's own window: the service judges it by the
 * window that had the focus when the keyboard showed, against the app's process and the
 * ids it named (see ka_watcher_set_window_ids() and ka_watcher_set_app_ids()).
 */
typedef enum {
  KA_LOCAL_UNKNOWN,
  KA_LOCAL_TRUE,
  KA_LOCAL_FALSE,
} KaLocal;

/**
 * KaAnimationCurve:
 * @KA_ANIMATION_CURVE_UNKNOWN: the curve is not known
 * @KA_ANIMATION_CURVE_NONE: the keyboard jumps, no animation
 * @KA_ANIMATION_CURVE_LINEAR: linear
 * @KA_ANIMATION_CURVE_EASE_IN: ease in
 * @KA_ANIMATION_CURVE_EASE_OUT: ease out
 * @KA_ANIMATION_CURVE_EASE_IN_OUT: ease in and out

 * The timing curve of a keyboard's transition.
 */
typedef enum {
  KA_ANIMATION_CURVE_UNKNOWN,
  KA_ANIMATION_CURVE_NONE,
  KA_ANIMATION_CURVE_LINEAR,
  KA_ANIMATION_CURVE_EASE_IN,
  KA_ANIMATION_CURVE_EASE_OUT,
  KA_ANIMATION_CURVE_EASE_IN_OUT,
} KaAnimationCurve;

/**
 * KaGeometry:
 * @KA_GEOMETRY_UNKNOWN: how the frames were obtained is not known
 * @KA_GEOMETRY_REPORTED: the display server or the keyboard reported them
 * @KA_GEOMETRY_DERIVED: derived from what the display server reports (a reserved zone)
 * @KA_GEOMETRY_DERIVED_UPPER_BOUND: derived, and the keyboard covers at most this much

 * How a keyboard's frames were obtained.
 */
typedef enum {
  KA_GEOMETRY_UNKNOWN,
  KA_GEOMETRY_REPORTED,
  KA_GEOMETRY_DERIVED,
  KA_GEOMETRY_DERIVED_UPPER_BOUND,
} KaGeometry;

G_END_DECLS
