/* ka-watcher.h: the session service's keyboards, for one app. */
#pragma once

#if !defined(KEYBOARD_ADAPTER_INSIDE) && !defined(KEYBOARD_ADAPTER_COMPILATION)
#error "Only <keyboard-adapter.h> can be included directly."
#endif

#include <gio/gio.h>

#include "ka-rect.h"
#include "ka-update.h"

G_BEGIN_DECLS

#define KA_TYPE_WATCHER (ka_watcher_get_type ())
G_DECLARE_FINAL_TYPE (KaWatcher, ka_watcher, KA, WATCHER, GObject)

KaWatcher *ka_watcher_new (void);

gboolean ka_watcher_get_service_available (KaWatcher *self);
const GError *ka_watcher_get_error (KaWatcher *self);
gboolean ka_watcher_get_visible (KaWatcher *self);
const KaRect *ka_watcher_get_keyboard_rectangle (KaWatcher *self);
gboolean ka_watcher_get_animating (KaWatcher *self);
double ka_watcher_get_animation_duration (KaWatcher *self);

gboolean ka_watcher_get_progress_frames (KaWatcher *self);
void ka_watcher_set_progress_frames (KaWatcher *self, gboolean progress_frames);
void ka_watcher_set_window_ids (KaWatcher *self, const guint64 *window_ids, gsize n_window_ids);
const char *const *ka_watcher_get_app_ids (KaWatcher *self);
void ka_watcher_set_app_ids (KaWatcher *self, const char *const *app_ids);
const KaRect *ka_watcher_get_focus_window (KaWatcher *self);
gboolean ka_watcher_get_leave_in_place (KaWatcher *self);
void ka_watcher_set_leave_in_place (KaWatcher *self, gboolean leave_in_place);

void ka_watcher_show_async (KaWatcher *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data);
gboolean ka_watcher_show_finish (KaWatcher *self, GAsyncResult *result, GError **error);
void ka_watcher_hide_async (KaWatcher *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data);
gboolean ka_watcher_hide_finish (KaWatcher *self, GAsyncResult *result, GError **error);

G_END_DECLS
