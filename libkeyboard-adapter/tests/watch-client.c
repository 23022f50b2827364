/* watch-client: prints what a KaWatcher hears, one line each (GObjectLibraryTests reads them;
 * watch-client.py, watch-client.js and watch-client.vala print the same lines).
 *
 *   watch-client [--window-id HEX] [--progress]
 *
 * available true|false           KaWatcher:service-available changed
 * error CODE: MESSAGE            KaWatcher:error, CODE the KaError's nick
 * show ok | show error CODE: M   the answer to ka_watcher_show_async(), asked once subscribed
 * SIGNAL X,Y WxH local=L name=N  a keyboard's event (SIGNAL: will-show, did-hide, ...)
 * visible true|false X,Y WxH     KaWatcher:visible changed, with the keyboard's rectangle
 * hide ok | hide error CODE: M   the answer to ka_watcher_hide_async(), asked on each SIGUSR1
 * animating true|false           KaWatcher:animating changed
 * progress X,Y WxH local=L       a progress frame (with --progress: KaWatcher:progress-frames)
 *
 * On SIGUSR2 it names no window any more (ka_watcher_set_window_ids() with none), which
 * subscribes again.
 */
#include <glib-unix.h>
#include <keyboard-adapter.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static gboolean asked_show;

static const char *
nick (GType type, int value)
{
  GEnumClass *enum_class = g_type_class_ref (type);
  GEnumValue *found = g_enum_get_value (enum_class, value);
  const char *name = found != NULL ? found->value_nick : "?";
  g_type_class_unref (enum_class);
  return name;
}

static void
print_error (const char *what, const GError *error)
{
  if (error->domain == KA_ERROR)
    g_print ("%s %s: %s\n", what, nick (KA_TYPE_ERROR, error->code), error->message);
  else
    g_print ("%s %s %d: %s\n", what, g_quark_to_string (error->domain), error->code, error->message);
}

static void
on_shown (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  (void) user_data;
  if (ka_watcher_show_finish (KA_WATCHER (source), result, &error))
    g_print ("show ok\n");
  else
    print_error ("show error", error);
}

static void
on_hidden (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  (void) user_data;
  if (ka_watcher_hide_finish (KA_WATCHER (source), result, &error))
    g_print ("hide ok\n");
  else
    print_error ("hide error", error);
}

static void
on_progress (KaWatcher *watcher G_GNUC_UNUSED, KaProgress *progress, gpointer user_data G_GNUC_UNUSED)
{
  g_autofree char *frame = ka_rect_to_string (ka_progress_get_frame (progress));
  g_print ("progress %s local=%s\n", frame, nick (KA_TYPE_LOCAL, ka_progress_get_local (progress)));
}

static gboolean
on_sigusr1 (gpointer watcher)
{
  ka_watcher_hide_async (watcher, NULL, on_hidden, NULL);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigusr2 (gpointer watcher)
{
  ka_watcher_set_window_ids (watcher, NULL, 0);
  return G_SOURCE_CONTINUE;
}

static void
on_event (KaWatcher *watcher G_GNUC_UNUSED, KaUpdate *update, gpointer user_data)
{
  const char *signal = user_data;
  const KaRect *end = ka_update_get_end_frame (update);
  g_autofree char *frame = end != NULL ? ka_rect_to_string (end) : g_strdup ("?");
  g_print ("%s %s local=%s name=%s\n", signal, frame, nick (KA_TYPE_LOCAL, ka_update_get_local (update)),
           ka_update_get_keyboard_name (update));
}

static void
on_notify (KaWatcher *watcher, GParamSpec *pspec, gpointer user_data)
{
  (void) user_data;
  const char *name = g_param_spec_get_name (pspec);
  if (g_str_equal (name, "service-available"))
    {
      gboolean available = ka_watcher_get_service_available (watcher);
      g_print ("available %s\n", available ? "true" : "false");
      if (available && !asked_show)
        {
          asked_show = TRUE;
          ka_watcher_show_async (watcher, NULL, on_shown, NULL);
        }
    }
  else if (g_str_equal (name, "error") && ka_watcher_get_error (watcher) != NULL)
    print_error ("error", ka_watcher_get_error (watcher));
  else if (g_str_equal (name, "animating"))
    g_print ("animating %s\n", ka_watcher_get_animating (watcher) ? "true" : "false");
  else if (g_str_equal (name, "visible"))
    {
      g_autofree char *rectangle = ka_rect_to_string (ka_watcher_get_keyboard_rectangle (watcher));
      g_print ("visible %s %s\n", ka_watcher_get_visible (watcher) ? "true" : "false", rectangle);
    }
}

int
main (int argc, char **argv)
{
  guint64 window = 0;
  gboolean progress = FALSE;
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--window-id") && i + 1 < argc)
        window = g_ascii_strtoull (argv[++i], NULL, 16);
      else if (g_str_equal (argv[i], "--progress"))
        progress = TRUE;
      else
        {
          fprintf (stderr, "usage: watch-client [--window-id HEX] [--progress]\n");
          return 2;
        }
    }
  setvbuf (stdout, NULL, _IOLBF, 0);
  g_autoptr (KaWatcher) watcher = ka_watcher_new ();
  if (window != 0)
    ka_watcher_set_window_ids (watcher, &window, 1);
  static const char *const names[] = {
    "will-show", "did-show", "will-hide", "did-hide", "will-change-frame", "did-change-frame",
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_signal_connect (watcher, names[i], G_CALLBACK (on_event), (gpointer) names[i]);
  g_signal_connect (watcher, "notify", G_CALLBACK (on_notify), NULL);
  g_unix_signal_add (SIGUSR1, on_sigusr1, watcher);
  g_unix_signal_add (SIGUSR2, on_sigusr2, watcher);
  if (progress)
    {
      ka_watcher_set_progress_frames (watcher, TRUE);
      g_signal_connect (watcher, "progress", G_CALLBACK (on_progress), NULL);
    }
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_main_loop_run (loop);
  return 0;
}
