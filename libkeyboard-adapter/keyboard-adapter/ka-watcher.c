/* ka-watcher.c: the session service's keyboards for one app, through GDBus. */
#include "ka-private.h"

/**
 * KaWatcher:
 *
 * Where the on-screen keyboard is, for one app, from KeyboardAdapter's session service
 * (`org.keyboardadapter.Watcher` on the session bus, `kbwatch --serve`).
 *
 * A watcher subscribes on the main context that is the thread's default when it is made
 * (the bus starts the service when it is installed and not running), and emits one signal
 * per event of a keyboard, each with a #KaUpdate: #KaWatcher::will-show,
 * #KaWatcher::did-show, #KaWatcher::will-hide, #KaWatcher::did-hide,
 * #KaWatcher::will-change-frame and #KaWatcher::did-change-frame. Its properties
 * (#KaWatcher:visible, #KaWatcher:keyboard-rectangle, #KaWatcher:animating,
 * #KaWatcher:animation-duration) follow the keyboards, with notify, for bindings.
 *
 * What the service's interface leaves to its clients is done here:
 *
 * - #KaUpdate:local is kept by the service's Verdict rules: the local of an event of
 *   show N is that of the last Verdict for a show up to N, a Verdict replaces those
 *   from its show on, and an event with no such Verdict (sent before the subscription)
 *   is not passed on.
 * - Signals are believed only from the unique name that owns `org.keyboardadapter.Watcher`
 *   now (asked with `GetNameOwner`, followed by the bus's `NameOwnerChanged`).
 * - When the service goes away, its keyboards are forgotten (#KaWatcher:visible turns
 *   %FALSE, with no #KaWatcher::did-hide) and #KaWatcher:service-available turns
 *   %FALSE; the watcher subscribes again a second later, which starts a new service, and at
 *   once when someone else starts one. A service that is missing or refuses leaves
 *   #KaWatcher:service-available %FALSE and the reason in #KaWatcher:error, and the watcher
 *   tries again later (after 1 s, then up to every 30 s): it never blocks and never ends the
 *   app.
 *
 * The service judges #KaUpdate:local by the window that had the focus when a keyboard
 * showed: it belongs to the app when the app's process made it, or when its id is one the
 * app named with ka_watcher_set_window_ids() (X11) or ka_watcher_set_app_ids().
 */
struct _KaWatcher {
  GObject parent_instance;

  GCancellable *cancellable;
  GDBusConnection *bus;
  guint owner_changed_id;
  guint service_signals_id;
  /* The unique name that owns the service's name now, NULL when none does. */
  char *owner;
  KaVerdicts verdicts;

  gboolean service_available;
  GError *error;
  gboolean subscribing;
  guint subscription;
  guint retry_source;
  guint retry_delay;

  gboolean progress;
  GArray *window_ids;
  GStrv app_ids;
  gboolean leave_in_place;
  /* Whether the service was told leave_in_place since it last answered a Subscribe. */
  gboolean told_in_place;

  /* The keyboards on screen or on their way (Keyboard), the last one updated last. */
  GPtrArray *keyboards;
  gboolean visible;
  KaRect keyboard_rectangle;
  KaRect focus_window;
  gboolean animating;
  double animation_duration;
};

typedef struct {
  char *id;
  KaRect frame;
  /* Where the display server shows the app's window for this keyboard's show (its verdict's
   * window); empty when not told. */
  KaRect window;
  gboolean visible;
  gboolean animating;
} Keyboard;

G_DEFINE_FINAL_TYPE (KaWatcher, ka_watcher, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SERVICE_AVAILABLE,
  PROP_ERROR,
  PROP_VISIBLE,
  PROP_KEYBOARD_RECTANGLE,
  PROP_ANIMATING,
  PROP_ANIMATION_DURATION,
  PROP_PROGRESS_FRAMES,
  PROP_APP_IDS,
  PROP_FOCUS_WINDOW,
  PROP_LEAVE_IN_PLACE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_WILL_SHOW,
  SIGNAL_DID_SHOW,
  SIGNAL_WILL_HIDE,
  SIGNAL_DID_HIDE,
  SIGNAL_WILL_CHANGE_FRAME,
  SIGNAL_DID_CHANGE_FRAME,
  SIGNAL_PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void subscribe (KaWatcher *self);

static void
keyboard_free (gpointer data)
{
  Keyboard *keyboard = data;
  g_free (keyboard->id);
  g_free (keyboard);
}

/* ---- errors ---- */

/* A call's error in KA_ERROR (cancellation stays what it is), with the D-Bus error name
 * taken off the message. */
static GError *
ka_error_from_call (GError *error)
{
  ka_error_quark ();
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return error;
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN)
      || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
    {
      GError *mapped = g_error_new (
          KA_ERROR, KA_ERROR_SERVICE_UNKNOWN,
          "the session bus knows no %s: install kbwatch (its D-Bus service file lets the bus start it), "
          "or run kbwatch --serve in the session",
          KA_SERVICE_NAME);
      g_error_free (error);
      return mapped;
    }
  g_autofree char *remote = g_dbus_error_get_remote_error (error);
  KaError code = KA_ERROR_FAILED;
  g_dbus_error_strip_remote_error (error);
  if (error->domain != KA_ERROR)
    {
      /* A reply decoded before the domain was registered carries the name alone. */
      ka_error_code_for_name (remote, &code);
      GError *mapped = g_error_new (KA_ERROR, code, "%s", error->message);
      g_error_free (error);
      return mapped;
    }
  return error;
}

static void
set_service_available (KaWatcher *self, gboolean available)
{
  if (self->service_available == available)
    return;
  self->service_available = available;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVICE_AVAILABLE]);
}

/* Takes `error` (NULL clears it). */
static void
set_error (KaWatcher *self, GError *error)
{
  if (self->error == NULL && error == NULL)
    return;
  if (self->error != NULL && error != NULL && g_error_matches (self->error, error->domain, error->code)
      && g_strcmp0 (self->error->message, error->message) == 0)
    {
      g_error_free (error);
      return;
    }
  g_clear_error (&self->error);
  self->error = error;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

/* ---- the keyboards ---- */

/* Sets the properties from the keyboards (notify for each that changed). */
static void
recompute (KaWatcher *self)
{
  gboolean visible = FALSE, animating = FALSE;
  KaRect rectangle = { 0, 0, 0, 0 }, window = { 0, 0, 0, 0 };
  for (guint i = 0; i < self->keyboards->len; i++)
    {
      Keyboard *keyboard = g_ptr_array_index (self->keyboards, i);
      animating |= keyboard->animating;
      if (keyboard->visible)
        {
          visible = TRUE;
          rectangle = keyboard->frame;
          window = keyboard->window;
        }
    }
  GObject *object = G_OBJECT (self);
  if (visible != self->visible)
    {
      self->visible = visible;
      g_object_notify_by_pspec (object, properties[PROP_VISIBLE]);
    }
  if (!ka_rect_equal (&rectangle, &self->keyboard_rectangle))
    {
      self->keyboard_rectangle = rectangle;
      g_object_notify_by_pspec (object, properties[PROP_KEYBOARD_RECTANGLE]);
    }
  if (!ka_rect_equal (&window, &self->focus_window))
    {
      self->focus_window = window;
      g_object_notify_by_pspec (object, properties[PROP_FOCUS_WINDOW]);
    }
  if (animating != self->animating)
    {
      self->animating = animating;
      g_object_notify_by_pspec (object, properties[PROP_ANIMATING]);
    }
}

static Keyboard *
keyboard_for (KaWatcher *self, const char *id, gboolean add)
{
  for (guint i = 0; i < self->keyboards->len; i++)
    {
      Keyboard *keyboard = g_ptr_array_index (self->keyboards, i);
      if (g_strcmp0 (keyboard->id, id) == 0)
        {
          /* The last one updated goes last: its frame is the watcher's rectangle. */
          g_ptr_array_steal_index (self->keyboards, i);
          g_ptr_array_add (self->keyboards, keyboard);
          return keyboard;
        }
    }
  if (!add)
    return NULL;
  Keyboard *keyboard = g_new0 (Keyboard, 1);
  keyboard->id = g_strdup (id);
  g_ptr_array_add (self->keyboards, keyboard);
  return keyboard;
}

static void
forget_keyboards (KaWatcher *self)
{
  g_ptr_array_set_size (self->keyboards, 0);
  g_object_freeze_notify (G_OBJECT (self));
  recompute (self);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
deliver (KaWatcher *self, KaUpdate *update, const KaRect *window)
{
  KaEventKind event = ka_update_get_event (update);
  const char *id = ka_update_get_keyboard_id (update);
  gboolean will = event == KA_EVENT_KIND_WILL_SHOW || event == KA_EVENT_KIND_WILL_HIDE
                  || event == KA_EVENT_KIND_WILL_CHANGE_FRAME;
  Keyboard *keyboard = keyboard_for (self, id != NULL ? id : "", TRUE);
  keyboard->visible = ka_update_get_visible (update);
  keyboard->animating = will;
  const KaRect *end = ka_update_get_end_frame (update);
  if (end != NULL)
    keyboard->frame = *end;
  keyboard->window = window != NULL && ka_update_get_local (update) == KA_LOCAL_TRUE ? *window : (KaRect) { 0 };
  if (!keyboard->visible && !keyboard->animating)
    g_ptr_array_remove (self->keyboards, keyboard);

  g_object_freeze_notify (G_OBJECT (self));
  if (will && self->animation_duration != ka_update_get_animation_duration (update))
    {
      self->animation_duration = ka_update_get_animation_duration (update);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION_DURATION]);
    }
  recompute (self);
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[SIGNAL_WILL_SHOW + event], 0, update);
}

/* ---- the service's signals ---- */

static void
on_service_signal (GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                   const char *member, GVariant *parameters, gpointer user_data)
{
  KaWatcher *self = KA_WATCHER (user_data);
  (void) bus;
  (void) path;
  (void) interface;
  /* Anyone may send a signal with this interface, and address one to this connection:
   * only the service's present owner is believed. */
  if (self->owner == NULL || g_strcmp0 (sender, self->owner) != 0)
    return;
  if (g_strcmp0 (member, "Verdict") == 0 && g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(ua{sv})")))
    {
      guint show;
      g_autoptr (GVariant) verdict = NULL;
      g_variant_get (parameters, "(u@a{sv})", &show, &verdict);
      KaRect window = { 0, 0, 0, 0 };
      gint32 x, y, width, height;
      if (g_variant_lookup (verdict, "window", "(iiii)", &x, &y, &width, &height) && width > 0 && height > 0)
        window = (KaRect) { x, y, width, height };
      ka_verdicts_add (&self->verdicts, show, ka_local_from_variant (verdict), &window);
    }
  else if ((g_strcmp0 (member, "Event") == 0 || g_strcmp0 (member, "SubscriberEvent") == 0)
           && g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(a{sv})")))
    {
      g_autoptr (GVariant) values = g_variant_get_child_value (parameters, 0);
      KaLocal local;
      KaRect window = { 0, 0, 0, 0 };
      if (g_strcmp0 (member, "SubscriberEvent") == 0)
        local = ka_local_from_variant (values);
      else
        {
          guint show = 0;
          if (!g_variant_lookup (values, "show", "u", &show)
              || !ka_verdicts_lookup (&self->verdicts, show, &local, &window))
            return; /* sent before the subscription */
        }
      g_autoptr (KaUpdate) update = ka_update_new_from_variant (values, local);
      if (update != NULL)
        deliver (self, update, &window);
    }
  else if (g_strcmp0 (member, "Progress") == 0 && self->progress
           && g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(a{sv})")))
    {
      g_autoptr (GVariant) values = g_variant_get_child_value (parameters, 0);
      guint show = 0;
      KaLocal local;
      if (!g_variant_lookup (values, "show", "u", &show) || !ka_verdicts_lookup (&self->verdicts, show, &local, NULL))
        return;
      g_autoptr (KaProgress) progress = ka_progress_new_from_variant (values, local);
      if (progress != NULL)
        g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, progress);
    }
}

/* ---- the service's owner ---- */

static void
schedule_retry (KaWatcher *self);

static void
set_owner (KaWatcher *self, const char *owner)
{
  if (owner != NULL && owner[0] == '\0')
    owner = NULL;
  if (g_strcmp0 (owner, self->owner) == 0)
    return;
  gboolean had_owner = self->owner != NULL;
  g_free (self->owner);
  self->owner = g_strdup (owner);
  /* A new service counts shows anew, and knows nothing of this subscriber. */
  g_array_set_size (self->verdicts.verdicts, 0);
  if (had_owner)
    {
      set_service_available (self, FALSE);
      forget_keyboards (self);
    }
  if (owner == NULL)
    {
      /* Gone: subscribing again (in a second) starts a new one where the bus can. */
      self->retry_delay = 1;
      schedule_retry (self);
    }
  else if (!self->subscribing)
    {
      g_clear_handle_id (&self->retry_source, g_source_remove);
      subscribe (self);
    }
}

static void
on_owner_changed (GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                  const char *member, GVariant *parameters, gpointer user_data)
{
  KaWatcher *self = KA_WATCHER (user_data);
  const char *name, *old_owner, *new_owner;
  (void) bus;
  (void) path;
  (void) interface;
  (void) member;
  if (g_strcmp0 (sender, "org.freedesktop.DBus") != 0 || !g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (g_strcmp0 (name, KA_SERVICE_NAME) != 0)
    return;
  set_owner (self, new_owner);
}

static void
on_name_owner (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError *error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (error);
      return; /* the watcher is gone */
    }
  KaWatcher *self = KA_WATCHER (user_data);
  if (reply != NULL)
    {
      const char *owner;
      g_variant_get (reply, "(&s)", &owner);
      /* The reply is newer than any NameOwnerChanged before it. */
      g_free (self->owner);
      self->owner = g_strdup (owner);
    }
  g_clear_error (&error);
}

/* ---- subscribing ---- */

static GVariant *
subscribe_options (KaWatcher *self)
{
  GVariantBuilder options;
  g_variant_builder_init (&options, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&options, "{sv}", "progress", g_variant_new_boolean (self->progress));
  if (self->window_ids->len > 0)
    g_variant_builder_add (&options, "{sv}", "window_ids",
                           g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, self->window_ids->data,
                                                      self->window_ids->len, sizeof (guint64)));
  if (self->app_ids != NULL && self->app_ids[0] != NULL)
    g_variant_builder_add (&options, "{sv}", "app_ids", g_variant_new_strv ((const char *const *) self->app_ids, -1));
  return g_variant_new ("(a{sv})", &options);
}

typedef struct {
  KaWatcher *self;
  guint subscription;
} SubscribeCall;

static void
on_told_in_place (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  (void) user_data;
  /* The display server then moves the app's windows as it does: nothing else changes. */
  if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("LeaveWindowsInPlace: %s", error->message);
}

/* Tells the service the app's wish (#KaWatcher:leave-in-place) when it differs from what the
 * service knows: FALSE is what a service that never heard of the app does. */
static void
tell_in_place (KaWatcher *self)
{
  if (self->bus == NULL || !self->service_available || self->told_in_place == self->leave_in_place)
    return;
  self->told_in_place = self->leave_in_place;
  g_dbus_connection_call (self->bus, KA_SERVICE_NAME, KA_SERVICE_PATH, KA_SERVICE_INTERFACE, "LeaveWindowsInPlace",
                          g_variant_new ("(b)", self->leave_in_place), G_VARIANT_TYPE_UNIT,
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, self->cancellable, on_told_in_place, NULL);
}

static void
on_subscribed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SubscribeCall *call = user_data;
  GError *error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (error);
      g_free (call);
      return; /* the watcher is gone */
    }
  KaWatcher *self = call->self;
  gboolean latest = call->subscription == self->subscription;
  g_free (call);
  if (!latest)
    {
      g_clear_error (&error);
      return; /* a later Subscribe replaced this one's options */
    }
  self->subscribing = FALSE;
  if (error != NULL)
    {
      set_error (self, ka_error_from_call (error));
      set_service_available (self, FALSE);
      schedule_retry (self);
      return;
    }
  self->retry_delay = 1;
  set_error (self, NULL);
  set_service_available (self, TRUE);
  /* A service that started again knows nothing of the app's wish. */
  self->told_in_place = FALSE;
  tell_in_place (self);
}

static void
subscribe (KaWatcher *self)
{
  if (self->bus == NULL)
    return;
  SubscribeCall *call = g_new (SubscribeCall, 1);
  call->self = self;
  call->subscription = ++self->subscription;
  self->subscribing = TRUE;
  /* Without NO_AUTO_START: the bus starts the service when it is installed. */
  g_dbus_connection_call (self->bus, KA_SERVICE_NAME, KA_SERVICE_PATH, KA_SERVICE_INTERFACE, "Subscribe",
                          subscribe_options (self), G_VARIANT_TYPE_UNIT, G_DBUS_CALL_FLAGS_NONE, -1,
                          self->cancellable, on_subscribed, call);
}

static gboolean
on_retry (gpointer user_data)
{
  KaWatcher *self = KA_WATCHER (user_data);
  self->retry_source = 0;
  if (!self->subscribing)
    subscribe (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_retry (KaWatcher *self)
{
  if (self->retry_source != 0 || self->bus == NULL)
    return;
  self->retry_source = g_timeout_add_seconds (self->retry_delay, on_retry, self);
  self->retry_delay = MIN (self->retry_delay * 2, 30);
}

static void
on_bus (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError *error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);
  (void) source;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (error);
      return; /* the watcher is gone */
    }
  KaWatcher *self = KA_WATCHER (user_data);
  if (bus == NULL)
    {
      set_error (self, g_error_new (KA_ERROR, KA_ERROR_NO_BUS, "no session bus: %s", error->message));
      g_error_free (error);
      return;
    }
  self->bus = bus;
  /* Listen first, so that nothing sent after the Subscribe is missed. */
  self->owner_changed_id = g_dbus_connection_signal_subscribe (
      bus, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
      KA_SERVICE_NAME, G_DBUS_SIGNAL_FLAGS_NONE, on_owner_changed, self, NULL);
  self->service_signals_id = g_dbus_connection_signal_subscribe (
      bus, NULL, KA_SERVICE_INTERFACE, NULL, KA_SERVICE_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_service_signal,
      self, NULL);
  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "GetNameOwner", g_variant_new ("(s)", KA_SERVICE_NAME), G_VARIANT_TYPE ("(s)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable, on_name_owner, self);
  subscribe (self);
}

/* ---- GObject ---- */

static void
ka_watcher_constructed (GObject *object)
{
  KaWatcher *self = KA_WATCHER (object);
  G_OBJECT_CLASS (ka_watcher_parent_class)->constructed (object);
  g_bus_get (G_BUS_TYPE_SESSION, self->cancellable, on_bus, self);
}

static void
ka_watcher_dispose (GObject *object)
{
  KaWatcher *self = KA_WATCHER (object);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->retry_source, g_source_remove);
  if (self->bus != NULL)
    {
      g_dbus_connection_signal_unsubscribe (self->bus, self->owner_changed_id);
      g_dbus_connection_signal_unsubscribe (self->bus, self->service_signals_id);
      if (self->service_available)
        g_dbus_connection_call (self->bus, KA_SERVICE_NAME, KA_SERVICE_PATH, KA_SERVICE_INTERFACE, "Unsubscribe",
                                NULL, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, NULL, NULL);
      g_clear_object (&self->bus);
    }
  G_OBJECT_CLASS (ka_watcher_parent_class)->dispose (object);
}

static void
ka_watcher_finalize (GObject *object)
{
  KaWatcher *self = KA_WATCHER (object);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->owner, g_free);
  ka_verdicts_clear (&self->verdicts);
  g_clear_error (&self->error);
  g_clear_pointer (&self->window_ids, g_array_unref);
  g_clear_pointer (&self->app_ids, g_strfreev);
  g_clear_pointer (&self->keyboards, g_ptr_array_unref);
  G_OBJECT_CLASS (ka_watcher_parent_class)->finalize (object);
}

static void
ka_watcher_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  KaWatcher *self = KA_WATCHER (object);
  switch (id)
    {
    case PROP_SERVICE_AVAILABLE: g_value_set_boolean (value, self->service_available); break;
    case PROP_ERROR: g_value_set_boxed (value, self->error); break;
    case PROP_VISIBLE: g_value_set_boolean (value, self->visible); break;
    case PROP_KEYBOARD_RECTANGLE: g_value_set_boxed (value, &self->keyboard_rectangle); break;
    case PROP_ANIMATING: g_value_set_boolean (value, self->animating); break;
    case PROP_ANIMATION_DURATION: g_value_set_double (value, self->animation_duration); break;
    case PROP_PROGRESS_FRAMES: g_value_set_boolean (value, self->progress); break;
    case PROP_APP_IDS: g_value_set_boxed (value, self->app_ids); break;
    case PROP_FOCUS_WINDOW: g_value_set_boxed (value, &self->focus_window); break;
    case PROP_LEAVE_IN_PLACE: g_value_set_boolean (value, self->leave_in_place); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ka_watcher_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  KaWatcher *self = KA_WATCHER (object);
  switch (id)
    {
    case PROP_PROGRESS_FRAMES: ka_watcher_set_progress_frames (self, g_value_get_boolean (value)); break;
    case PROP_APP_IDS: ka_watcher_set_app_ids (self, g_value_get_boxed (value)); break;
    case PROP_LEAVE_IN_PLACE: ka_watcher_set_leave_in_place (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ka_watcher_class_init (KaWatcherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->constructed = ka_watcher_constructed;
  object_class->dispose = ka_watcher_dispose;
  object_class->finalize = ka_watcher_finalize;
  object_class->get_property = ka_watcher_get_property;
  object_class->set_property = ka_watcher_set_property;
  /* The service's error names, registered before any reply comes. */
  ka_error_quark ();
  const GParamFlags readable = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
  const GParamFlags writable = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  /**
   * KaWatcher:service-available:
   *
   * Whether the watcher is subscribed to the session service now. %FALSE until the first
   * `Subscribe` is answered, while the service is restarted, and while it is missing or
   * refuses (see #KaWatcher:error).
   */
  properties[PROP_SERVICE_AVAILABLE] = g_param_spec_boolean ("service-available", NULL, NULL, FALSE, readable);
  /**
   * KaWatcher:error:
   *
   * Why the watcher could not subscribe the last time it tried, in the domain %KA_ERROR
   * (%KA_ERROR_SERVICE_UNKNOWN when kbwatch is not installed, %KA_ERROR_NO_DISPLAY when
   * the service has no display server, %KA_ERROR_NO_BUS without a session bus, ...);
   * %NULL once it has subscribed.
   */
  properties[PROP_ERROR] = g_param_spec_boxed ("error", NULL, NULL, G_TYPE_ERROR, readable);
  /**
   * KaWatcher:visible:
   *
   * Whether a keyboard is visible, or on its way: it turns %TRUE at #KaWatcher::will-show
   * and %FALSE at #KaWatcher::will-hide of the last keyboard.
   */
  properties[PROP_VISIBLE] = g_param_spec_boolean ("visible", NULL, NULL, FALSE, readable);
  /**
   * KaWatcher:keyboard-rectangle: (type KaRect)
   *
   * Where the visible keyboard is, or is going (the end frame of its last event), in the
   * screen's pixels; empty (0,0 0x0) when no keyboard is visible. With several keyboards,
   * the one updated last.
   */
  properties[PROP_KEYBOARD_RECTANGLE] = g_param_spec_boxed ("keyboard-rectangle", NULL, NULL, KA_TYPE_RECT,
                                                            readable);
  /**
   * KaWatcher:animating:
   *
   * Whether a keyboard is in a transition: from a will event to its did event.
   */
  properties[PROP_ANIMATING] = g_param_spec_boolean ("animating", NULL, NULL, FALSE, readable);
  /**
   * KaWatcher:animation-duration:
   *
   * The length of the last transition that began, in seconds; 0 when it jumps or when
   * unknown.
   */
  properties[PROP_ANIMATION_DURATION] = g_param_spec_double ("animation-duration", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                             readable);
  /**
   * KaWatcher:progress-frames:
   *
   * Whether the watcher asks for progress frames (#KaWatcher::progress) while a keyboard
   * slides. Changing it subscribes again with the new option.
   */
  properties[PROP_PROGRESS_FRAMES] = g_param_spec_boolean ("progress-frames", NULL, NULL, FALSE, writable);
  /**
   * KaWatcher:app-ids:
   *
   * The app ids the app names as its own (a Wayland app id, a Flatpak app id), by which
   * the service judges #KaUpdate:local; %NULL for none. Changing it subscribes again.
   */
  properties[PROP_APP_IDS] = g_param_spec_boxed ("app-ids", NULL, NULL, G_TYPE_STRV, writable);
  /**
   * KaWatcher:focus-window: (type KaRect)
   *
   * Where the display server shows the app's window that had the focus when the visible
   * keyboard came up (the keyboard of #KaWatcher:keyboard-rectangle), once the keyboard's
   * slide ends: the window's own frame, without the shadow a client draws around it, in the
   * keyboard's coordinates. GNOME Shell moves that window itself, up by its keyboard's height
   * when the keyboard would cover the window's text cursor, and tells the app nothing; the
   * session service passes on where (through the package's GNOME Shell extension) to the app
   * whose window it is alone. Empty when no visible keyboard came up for this app, or nothing
   * tells (every display server but GNOME's). #KaGtkCoverage measures the window there.
   */
  properties[PROP_FOCUS_WINDOW] = g_param_spec_boxed ("focus-window", NULL, NULL, KA_TYPE_RECT, readable);
  /**
   * KaWatcher:leave-in-place:
   *
   * Whether the app asks the display server to leave its windows where they are when a
   * keyboard opens, because it makes room for the keyboard itself (Android's `adjustResize`
   * rather than `adjustPan`): a chat screen that lifts its entry bar onto the keyboard keeps
   * its header on screen. Only GNOME Shell moves windows (the focused one, up by its
   * keyboard's height, when the keyboard would cover the window's text cursor); the session
   * service asks it, through the package's extension, for the windows of this app's process
   * alone, as the bus names that process (a sandboxed app is refused), until the app leaves
   * the bus. Takes effect the next time the shell would move a window. The service is told
   * again when it starts again.
   */
  properties[PROP_LEAVE_IN_PLACE] = g_param_spec_boolean ("leave-in-place", NULL, NULL, FALSE, writable);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KaWatcher::will-show:
   * @self: the watcher
   * @update: the event
   *
   * A keyboard is about to appear: #KaUpdate:end-frame is where it will stand.
   */
  signals[SIGNAL_WILL_SHOW] = g_signal_new ("will-show", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                            NULL, NULL, G_TYPE_NONE, 1, KA_TYPE_UPDATE);
  /**
   * KaWatcher::did-show:
   * @self: the watcher
   * @update: the event
   *
   * A keyboard has come to rest on screen, at #KaUpdate:end-frame.
   */
  signals[SIGNAL_DID_SHOW] = g_signal_new ("did-show", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 1, KA_TYPE_UPDATE);
  /**
   * KaWatcher::will-hide:
   * @self: the watcher
   * @update: the event
   *
   * A keyboard is about to leave the screen.
   */
  signals[SIGNAL_WILL_HIDE] = g_signal_new ("will-hide", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                            NULL, NULL, G_TYPE_NONE, 1, KA_TYPE_UPDATE);
  /**
   * KaWatcher::did-hide:
   * @self: the watcher
   * @update: the event
   *
   * A keyboard has left the screen.
   */
  signals[SIGNAL_DID_HIDE] = g_signal_new ("did-hide", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 1, KA_TYPE_UPDATE);
  /**
   * KaWatcher::will-change-frame:
   * @self: the watcher
   * @update: the event
   *
   * A visible keyboard is about to move or change size, to #KaUpdate:end-frame.
   */
  signals[SIGNAL_WILL_CHANGE_FRAME] = g_signal_new ("will-change-frame", G_TYPE_FROM_CLASS (klass),
                                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                                    KA_TYPE_UPDATE);
  /**
   * KaWatcher::did-change-frame:
   * @self: the watcher
   * @update: the event
   *
   * A visible keyboard has moved or changed size, to #KaUpdate:end-frame.
   */
  signals[SIGNAL_DID_CHANGE_FRAME] = g_signal_new ("did-change-frame", G_TYPE_FROM_CLASS (klass),
                                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                                   KA_TYPE_UPDATE);
  /**
   * KaWatcher::progress:
   * @self: the watcher
   * @progress: the frame
   *
   * One frame of a keyboard's slide, between a will event and its did event; emitted
   * only while #KaWatcher:progress-frames is %TRUE.
   */
  signals[SIGNAL_PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 1, KA_TYPE_PROGRESS);
}

static void
ka_watcher_init (KaWatcher *self)
{
  self->cancellable = g_cancellable_new ();
  ka_verdicts_init (&self->verdicts);
  self->retry_delay = 1;
  self->window_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->keyboards = g_ptr_array_new_with_free_func (keyboard_free);
}

/**
 * ka_watcher_new:
 *
 * Makes a watcher. It connects to the session bus and subscribes to the service
 * asynchronously, on the thread's default main context, once that context runs: options
 * set right after this call (ka_watcher_set_window_ids(), ...) go with the first
 * `Subscribe`. The bus starts the service when it is installed and not running.
 *
 * Returns: (transfer full): a new #KaWatcher
 */
KaWatcher *
ka_watcher_new (void)
{
  return g_object_new (KA_TYPE_WATCHER, NULL);
}

/**
 * ka_watcher_get_service_available:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:service-available.
 *
 * Returns: whether the watcher is subscribed to the session service now
 */
gboolean
ka_watcher_get_service_available (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), FALSE);
  return self->service_available;
}

/**
 * ka_watcher_get_error:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:error.
 *
 * Returns: (transfer none) (nullable): why the last try to subscribe failed, %NULL once
 *   subscribed
 */
const GError *
ka_watcher_get_error (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), NULL);
  return self->error;
}

/**
 * ka_watcher_get_visible:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:visible.
 *
 * Returns: whether a keyboard is visible
 */
gboolean
ka_watcher_get_visible (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), FALSE);
  return self->visible;
}

/**
 * ka_watcher_get_keyboard_rectangle:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:keyboard-rectangle.
 *
 * Returns: (transfer none): where the visible keyboard is, empty when none is
 */
const KaRect *
ka_watcher_get_keyboard_rectangle (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), NULL);
  return &self->keyboard_rectangle;
}

/**
 * ka_watcher_get_animating:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:animating.
 *
 * Returns: whether a keyboard is in a transition
 */
gboolean
ka_watcher_get_animating (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), FALSE);
  return self->animating;
}

/**
 * ka_watcher_get_animation_duration:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:animation-duration.
 *
 * Returns: the last transition's length in seconds, 0 when unknown
 */
double
ka_watcher_get_animation_duration (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), 0);
  return self->animation_duration;
}

/**
 * ka_watcher_get_progress_frames:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:progress-frames.
 *
 * Returns: whether the watcher asks for progress frames
 */
gboolean
ka_watcher_get_progress_frames (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), FALSE);
  return self->progress;
}

/* The options changed: a watcher that has asked already asks again with them. */
static void
options_changed (KaWatcher *self)
{
  if (self->bus != NULL && (self->subscribing || self->service_available))
    subscribe (self);
}

/**
 * ka_watcher_set_progress_frames:
 * @self: a #KaWatcher
 * @progress_frames: whether to ask for progress frames
 *
 * Sets #KaWatcher:progress-frames.
 */
void
ka_watcher_set_progress_frames (KaWatcher *self, gboolean progress_frames)
{
  g_return_if_fail (KA_IS_WATCHER (self));
  progress_frames = !!progress_frames;
  if (self->progress == progress_frames)
    return;
  self->progress = progress_frames;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS_FRAMES]);
  options_changed (self);
}

/**
 * ka_watcher_set_window_ids:
 * @self: a #KaWatcher
 * @window_ids: (array length=n_window_ids) (nullable): the app's own X11 window ids
 * @n_window_ids: how many
 *
 * Names the app's own X11 windows (at most 64), by which the service judges
 * #KaUpdate:local: a keyboard that comes up while one of them has the focus is local. A
 * window the app's process made is its own without this; a toolkit's window made in
 * another process (or a sandbox's) is named here. Replaces the ids named before, and
 * subscribes again when the watcher has subscribed already: the service then sends its
 * verdicts again, and the events that follow (those of a keyboard up now too) carry
 * #KaUpdate:local judged by the new ids.
 */
void
ka_watcher_set_window_ids (KaWatcher *self, const guint64 *window_ids, gsize n_window_ids)
{
  g_return_if_fail (KA_IS_WATCHER (self));
  g_return_if_fail (window_ids != NULL || n_window_ids == 0);
  g_array_set_size (self->window_ids, 0);
  g_array_append_vals (self->window_ids, window_ids, (guint) MIN (n_window_ids, 64));
  options_changed (self);
}

/**
 * ka_watcher_get_app_ids:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:app-ids.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the app ids named
 */
const char *const *
ka_watcher_get_app_ids (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), NULL);
  return (const char *const *) self->app_ids;
}

/**
 * ka_watcher_set_app_ids:
 * @self: a #KaWatcher
 * @app_ids: (array zero-terminated=1) (nullable): the app ids the app names as its own
 *
 * Sets #KaWatcher:app-ids (at most 64 are sent). Subscribes again when the watcher has
 * subscribed already, as ka_watcher_set_window_ids() does.
 */
void
ka_watcher_set_app_ids (KaWatcher *self, const char *const *app_ids)
{
  g_return_if_fail (KA_IS_WATCHER (self));
  GStrv copy = NULL;
  if (app_ids != NULL)
    {
      guint n = 0;
      while (app_ids[n] != NULL && n < 64)
        n++;
      copy = g_new0 (char *, n + 1);
      for (guint i = 0; i < n; i++)
        copy[i] = g_strdup (app_ids[i]);
    }
  g_strfreev (self->app_ids);
  self->app_ids = copy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_APP_IDS]);
  options_changed (self);
}

/**
 * ka_watcher_get_focus_window:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:focus-window.
 *
 * Returns: (transfer none): where the display server shows the app's focused window, or an
 *   empty rectangle
 */
const KaRect *
ka_watcher_get_focus_window (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), NULL);
  return &self->focus_window;
}

/**
 * ka_watcher_get_leave_in_place:
 * @self: a #KaWatcher
 *
 * Gets #KaWatcher:leave-in-place.
 *
 * Returns: whether the app asks to have its windows left in place
 */
gboolean
ka_watcher_get_leave_in_place (KaWatcher *self)
{
  g_return_val_if_fail (KA_IS_WATCHER (self), FALSE);
  return self->leave_in_place;
}

/**
 * ka_watcher_set_leave_in_place:
 * @self: a #KaWatcher
 * @leave_in_place: whether the display server should leave the app's windows in place
 *
 * Sets #KaWatcher:leave-in-place, and tells the service once the watcher has subscribed.
 */
void
ka_watcher_set_leave_in_place (KaWatcher *self, gboolean leave_in_place)
{
  g_return_if_fail (KA_IS_WATCHER (self));
  leave_in_place = !!leave_in_place;
  if (self->leave_in_place == leave_in_place)
    return;
  self->leave_in_place = leave_in_place;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEAVE_IN_PLACE]);
  tell_in_place (self);
}

/* ---- Show and Hide ---- */

static void
on_request_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    g_task_return_error (task, ka_error_from_call (error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_request_bus (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_finish (result, &error);
  (void) source;
  if (bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          GError *mapped = g_error_new (KA_ERROR, KA_ERROR_NO_BUS, "no session bus: %s", error->message);
          g_error_free (error);
          error = mapped;
        }
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  g_dbus_connection_call (bus, KA_SERVICE_NAME, KA_SERVICE_PATH, KA_SERVICE_INTERFACE, g_task_get_task_data (task),
                          NULL, G_VARIANT_TYPE_UNIT, G_DBUS_CALL_FLAGS_NONE, -1, g_task_get_cancellable (task),
                          on_request_done, task);
}

static void
request (KaWatcher *self, const char *method, gpointer tag, GCancellable *cancellable, GAsyncReadyCallback callback,
         gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, (gpointer) method, NULL);
  g_bus_get (G_BUS_TYPE_SESSION, cancellable, on_request_bus, task);
}

/**
 * ka_watcher_show_async:
 * @self: a #KaWatcher
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the service has answered
 * @user_data: (closure): data for @callback
 *
 * Asks the service to show the keyboard, through the keyboard's own service or the display
 * server (as `kbwatch --show`). The service answers once the keyboard accepted; the
 * keyboard's events follow as signals. Finish with ka_watcher_show_finish().
 */
void
ka_watcher_show_async (KaWatcher *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (KA_IS_WATCHER (self));
  request (self, "Show", ka_watcher_show_async, cancellable, callback, user_data);
}

/**
 * ka_watcher_show_finish:
 * @self: a #KaWatcher
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError in %KA_ERROR (%KA_ERROR_UNSUPPORTED when the
 *   keyboard cannot be shown this way, %KA_ERROR_FAILED, %KA_ERROR_NO_DISPLAY,
 *   %KA_ERROR_SERVICE_UNKNOWN, %KA_ERROR_NO_BUS), or %G_IO_ERROR_CANCELLED
 *
 * Finishes ka_watcher_show_async().
 *
 * Returns: %TRUE when the keyboard accepted
 */
gboolean
ka_watcher_show_finish (KaWatcher *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ka_watcher_show_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * ka_watcher_hide_async:
 * @self: a #KaWatcher
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the service has answered
 * @user_data: (closure): data for @callback
 *
 * Asks the service to hide the keyboard (as `kbwatch --hide`). Finish with
 * ka_watcher_hide_finish().
 */
void
ka_watcher_hide_async (KaWatcher *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (KA_IS_WATCHER (self));
  request (self, "Hide", ka_watcher_hide_async, cancellable, callback, user_data);
}

/**
 * ka_watcher_hide_finish:
 * @self: a #KaWatcher
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError in %KA_ERROR (%KA_ERROR_NOT_VISIBLE when no
 *   keyboard is visible, %KA_ERROR_UNSUPPORTED, %KA_ERROR_FAILED, %KA_ERROR_NO_DISPLAY,
 *   %KA_ERROR_SERVICE_UNKNOWN, %KA_ERROR_NO_BUS), or %G_IO_ERROR_CANCELLED
 *
 * Finishes ka_watcher_hide_async().
 *
 * Returns: %TRUE when the keyboard accepted
 */
gboolean
ka_watcher_hide_finish (KaWatcher *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ka_watcher_hide_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
