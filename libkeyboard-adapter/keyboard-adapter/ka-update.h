/* ka-update.h: one event of a keyboard, and one frame of its transition. */
#pragma once

#if !defined(KEYBOARD_ADAPTER_INSIDE) && !defined(KEYBOARD_ADAPTER_COMPILATION)
#error "Only <keyboard-adapter.h> can be included directly."
#endif

#include <glib-object.h>

#include "ka-rect.h"
#include "ka-types.h"

G_BEGIN_DECLS

#define KA_TYPE_UPDATE (ka_update_get_type ())
G_DECLARE_FINAL_TYPE (KaUpdate, ka_update, KA, UPDATE, GObject)

KaEventKind ka_update_get_event (KaUpdate *self);
guint ka_update_get_show (KaUpdate *self);
gint64 ka_update_get_time (KaUpdate *self);
const KaRect *ka_update_get_begin_frame (KaUpdate *self);
const KaRect *ka_update_get_end_frame (KaUpdate *self);
gboolean ka_update_get_end_frame_predicted (KaUpdate *self);
double ka_update_get_animation_duration (KaUpdate *self);
KaAnimationCurve ka_update_get_animation_curve (KaUpdate *self);
gboolean ka_update_get_visible (KaUpdate *self);
gboolean ka_update_get_docked (KaUpdate *self);
KaLocal ka_update_get_local (KaUpdate *self);
const char *ka_update_get_keyboard_name (KaUpdate *self);
const char *ka_update_get_keyboard_id (KaUpdate *self);
const char *ka_update_get_output_name (KaUpdate *self);
KaGeometry ka_update_get_geometry (KaUpdate *self);

#define KA_TYPE_PROGRESS (ka_progress_get_type ())
G_DECLARE_FINAL_TYPE (KaProgress, ka_progress, KA, PROGRESS, GObject)

KaEventKind ka_progress_get_transition (KaProgress *self);
const KaRect *ka_progress_get_frame (KaProgress *self);
double ka_progress_get_elapsed (KaProgress *self);
double ka_progress_get_fraction (KaProgress *self);
KaLocal ka_progress_get_local (KaProgress *self);
const char *ka_progress_get_keyboard_name (KaProgress *self);
const char *ka_progress_get_keyboard_id (KaProgress *self);

G_END_DECLS
