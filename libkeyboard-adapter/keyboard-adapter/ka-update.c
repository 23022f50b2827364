/* ka-update.c: one event of a keyboard, and one frame of its transition, read from the
 * session service's a{sv}. */
#include "ka-private.h"

/**
 * KaUpdate:
 *
 * One event of a keyboard, as #KaWatcher hands it to its signals: where the keyboard was
 * and where it goes (#KaUpdate:begin-frame, #KaUpdate:end-frame, in the screen's pixels),
 * how it gets there, and whether it came up for the app's own window (#KaUpdate:local).
 *
 * Its properties are read-only: an update is what the session service said, once.
 */
struct _KaUpdate {
  GObject parent_instance;

  KaEventKind event;
  guint show;
  gint64 time;
  KaRect *begin_frame;
  KaRect *end_frame;
  gboolean end_frame_predicted;
  double animation_duration;
  KaAnimationCurve animation_curve;
  gboolean visible;
  gboolean docked;
  KaLocal local;
  char *keyboard_name;
  char *keyboard_id;
  char *output_name;
  KaGeometry geometry;
};

G_DEFINE_FINAL_TYPE (KaUpdate, ka_update, G_TYPE_OBJECT)

enum {
  UPDATE_PROP_0,
  UPDATE_PROP_EVENT,
  UPDATE_PROP_SHOW,
  UPDATE_PROP_TIME,
  UPDATE_PROP_BEGIN_FRAME,
  UPDATE_PROP_END_FRAME,
  UPDATE_PROP_END_FRAME_PREDICTED,
  UPDATE_PROP_ANIMATION_DURATION,
  UPDATE_PROP_ANIMATION_CURVE,
  UPDATE_PROP_VISIBLE,
  UPDATE_PROP_DOCKED,
  UPDATE_PROP_LOCAL,
  UPDATE_PROP_KEYBOARD_NAME,
  UPDATE_PROP_KEYBOARD_ID,
  UPDATE_PROP_OUTPUT_NAME,
  UPDATE_PROP_GEOMETRY,
  UPDATE_N_PROPS
};

static GParamSpec *update_properties[UPDATE_N_PROPS];

static void
ka_update_finalize (GObject *object)
{
  KaUpdate *self = KA_UPDATE (object);
  g_clear_pointer (&self->begin_frame, ka_rect_free);
  g_clear_pointer (&self->end_frame, ka_rect_free);
  g_clear_pointer (&self->keyboard_name, g_free);
  g_clear_pointer (&self->keyboard_id, g_free);
  g_clear_pointer (&self->output_name, g_free);
  G_OBJECT_CLASS (ka_update_parent_class)->finalize (object);
}

static void
ka_update_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  KaUpdate *self = KA_UPDATE (object);
  switch (id)
    {
    case UPDATE_PROP_EVENT: g_value_set_enum (value, self->event); break;
    case UPDATE_PROP_SHOW: g_value_set_uint (value, self->show); break;
    case UPDATE_PROP_TIME: g_value_set_int64 (value, self->time); break;
    case UPDATE_PROP_BEGIN_FRAME: g_value_set_boxed (value, self->begin_frame); break;
    case UPDATE_PROP_END_FRAME: g_value_set_boxed (value, self->end_frame); break;
    case UPDATE_PROP_END_FRAME_PREDICTED: g_value_set_boolean (value, self->end_frame_predicted); break;
    case UPDATE_PROP_ANIMATION_DURATION: g_value_set_double (value, self->animation_duration); break;
    case UPDATE_PROP_ANIMATION_CURVE: g_value_set_enum (value, self->animation_curve); break;
    case UPDATE_PROP_VISIBLE: g_value_set_boolean (value, self->visible); break;
    case UPDATE_PROP_DOCKED: g_value_set_boolean (value, self->docked); break;
    case UPDATE_PROP_LOCAL: g_value_set_enum (value, self->local); break;
    case UPDATE_PROP_KEYBOARD_NAME: g_value_set_string (value, self->keyboard_name); break;
    case UPDATE_PROP_KEYBOARD_ID: g_value_set_string (value, self->keyboard_id); break;
    case UPDATE_PROP_OUTPUT_NAME: g_value_set_string (value, self->output_name); break;
    case UPDATE_PROP_GEOMETRY: g_value_set_enum (value, self->geometry); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ka_update_class_init (KaUpdateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = ka_update_finalize;
  object_class->get_property = ka_update_get_property;
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  /**
   * KaUpdate:event:
   *
   * Which of the six events this is.
   */
  update_properties[UPDATE_PROP_EVENT] = g_param_spec_enum ("event", NULL, NULL, KA_TYPE_EVENT_KIND,
                                                            KA_EVENT_KIND_WILL_SHOW, flags);
  /**
   * KaUpdate:show:
   *
   * The number of the keyboard's show this event belongs to, as the service counts them
   * (0 when the service did not say).
   */
  update_properties[UPDATE_PROP_SHOW] = g_param_spec_uint ("show", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * KaUpdate:time:
   *
   * When the service produced the event, in microseconds since 1970-01-01 UTC (0 when
   * it did not say).
   */
  update_properties[UPDATE_PROP_TIME] = g_param_spec_int64 ("time", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                                                            flags);
  /**
   * KaUpdate:begin-frame: (type KaRect)
   *
   * Where the transition began, in the screen's pixels; %NULL when unknown.
   */
  update_properties[UPDATE_PROP_BEGIN_FRAME] = g_param_spec_boxed ("begin-frame", NULL, NULL, KA_TYPE_RECT,
                                                                   flags);
  /**
   * KaUpdate:end-frame: (type KaRect)
   *
   * Where the transition ends, in the screen's pixels (a prediction when
   * #KaUpdate:end-frame-predicted is %TRUE); %NULL when unknown.
   */
  update_properties[UPDATE_PROP_END_FRAME] = g_param_spec_boxed ("end-frame", NULL, NULL, KA_TYPE_RECT,
                                                                 flags);
  /**
   * KaUpdate:end-frame-predicted:
   *
   * Whether #KaUpdate:end-frame is a predicted destination rather than one reported.
   */
  update_properties[UPDATE_PROP_END_FRAME_PREDICTED] = g_param_spec_boolean ("end-frame-predicted", NULL, NULL,
                                                                             FALSE, flags);
  /**
   * KaUpdate:animation-duration:
   *
   * How long the transition takes, in seconds; 0 when it jumps or when unknown.
   */
  update_properties[UPDATE_PROP_ANIMATION_DURATION] = g_param_spec_double ("animation-duration", NULL, NULL,
                                                                           0, G_MAXDOUBLE, 0, flags);
  /**
   * KaUpdate:animation-curve:
   *
   * The transition's timing curve.
   */
  update_properties[UPDATE_PROP_ANIMATION_CURVE] = g_param_spec_enum (
      "animation-curve", NULL, NULL, KA_TYPE_ANIMATION_CURVE, KA_ANIMATION_CURVE_UNKNOWN, flags);
  /**
   * KaUpdate:visible:
   *
   * Whether the keyboard is visible once the transition completes.
   */
  update_properties[UPDATE_PROP_VISIBLE] = g_param_spec_boolean ("visible", NULL, NULL, FALSE, flags);
  /**
   * KaUpdate:docked:
   *
   * Whether the keyboard spans an edge of its output.
   */
  update_properties[UPDATE_PROP_DOCKED] = g_param_spec_boolean ("docked", NULL, NULL, FALSE, flags);
  /**
   * KaUpdate:local:
   *
   * Whether the keyboard came up for one of the app's own windows, as the service judged
   * it for this app.
   */
  update_properties[UPDATE_PROP_LOCAL] = g_param_spec_enum ("local", NULL, NULL, KA_TYPE_LOCAL, KA_LOCAL_UNKNOWN,
                                                            flags);
  /**
   * KaUpdate:keyboard-name:
   *
   * The keyboard's name (`xvkbd`, `squeekboard`, ...); %NULL when unknown.
   */
  update_properties[UPDATE_PROP_KEYBOARD_NAME] = g_param_spec_string ("keyboard-name", NULL, NULL, NULL, flags);
  /**
   * KaUpdate:keyboard-id:
   *
   * The keyboard's id, unique while it lives (`x11:0x4001e5`, ...); %NULL when unknown.
   */
  update_properties[UPDATE_PROP_KEYBOARD_ID] = g_param_spec_string ("keyboard-id", NULL, NULL, NULL, flags);
  /**
   * KaUpdate:output-name:
   *
   * The name of the output (monitor) the keyboard is on; %NULL when unknown.
   */
  update_properties[UPDATE_PROP_OUTPUT_NAME] = g_param_spec_string ("output-name", NULL, NULL, NULL, flags);
  /**
   * KaUpdate:geometry:
   *
   * How the frames were obtained.
   */
  update_properties[UPDATE_PROP_GEOMETRY] = g_param_spec_enum ("geometry", NULL, NULL, KA_TYPE_GEOMETRY,
                                                               KA_GEOMETRY_UNKNOWN, flags);
  g_object_class_install_properties (object_class, UPDATE_N_PROPS, update_properties);
}

static void
ka_update_init (KaUpdate *self)
{
  self->local = KA_LOCAL_UNKNOWN;
}

static gboolean
event_kind_from_string (const char *name, KaEventKind *kind)
{
  static const char *const names[] = {
    "willShow", "didShow", "willHide", "didHide", "willChangeFrame", "didChangeFrame",
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      {
        *kind = (KaEventKind) i;
        return TRUE;
      }
  return FALSE;
}

static KaRect *
rect_lookup (GVariant *dictionary, const char *key)
{
  int x, y, width, height;
  if (!g_variant_lookup (dictionary, key, "(iiii)", &x, &y, &width, &height))
    return NULL;
  return ka_rect_new (x, y, width, height);
}

/* The string `key` of the dictionary under `outer` (keyboard, output). */
static char *
nested_string (GVariant *dictionary, const char *outer, const char *key)
{
  g_autoptr (GVariant) inner = g_variant_lookup_value (dictionary, outer, G_VARIANT_TYPE_VARDICT);
  char *value = NULL;
  if (inner != NULL && g_variant_lookup (inner, key, "s", &value))
    return value;
  return NULL;
}

KaLocal
ka_local_from_variant (GVariant *dictionary)
{
  gboolean local;
  if (!g_variant_lookup (dictionary, "local", "b", &local))
    return KA_LOCAL_UNKNOWN;
  return local ? KA_LOCAL_TRUE : KA_LOCAL_FALSE;
}

KaUpdate *
ka_update_new_from_variant (GVariant *update, KaLocal local)
{
  g_return_val_if_fail (g_variant_is_of_type (update, G_VARIANT_TYPE_VARDICT), NULL);
  const char *event_name = NULL;
  KaEventKind event;
  if (!g_variant_lookup (update, "event", "&s", &event_name) || !event_kind_from_string (event_name, &event))
    return NULL;
  KaUpdate *self = g_object_new (KA_TYPE_UPDATE, NULL);
  self->event = event;
  self->local = local;
  g_variant_lookup (update, "show", "u", &self->show);
  g_variant_lookup (update, "time", "x", &self->time);
  self->begin_frame = rect_lookup (update, "begin_frame");
  self->end_frame = rect_lookup (update, "end_frame");
  g_variant_lookup (update, "end_frame_predicted", "b", &self->end_frame_predicted);
  double duration = 0;
  if (g_variant_lookup (update, "animation_duration", "d", &duration) && duration > 0 && duration < 3600)
    self->animation_duration = duration;
  const char *curve = NULL;
  if (g_variant_lookup (update, "animation_curve", "&s", &curve))
    {
      static const char *const curves[] = { "unknown", "none", "linear", "easeIn", "easeOut", "easeInOut" };
      for (guint i = 0; i < G_N_ELEMENTS (curves); i++)
        if (g_strcmp0 (curve, curves[i]) == 0)
          self->animation_curve = (KaAnimationCurve) i;
    }
  g_variant_lookup (update, "visible", "b", &self->visible);
  g_variant_lookup (update, "docked", "b", &self->docked);
  self->keyboard_name = nested_string (update, "keyboard", "name");
  self->keyboard_id = nested_string (update, "keyboard", "id");
  self->output_name = nested_string (update, "output", "name");
  const char *geometry = NULL;
  if (g_variant_lookup (update, "geometry", "&s", &geometry))
    {
      static const char *const geometries[] = { "unknown", "reported", "derived", "derivedUpperBound" };
      for (guint i = 0; i < G_N_ELEMENTS (geometries); i++)
        if (g_strcmp0 (geometry, geometries[i]) == 0)
          self->geometry = (KaGeometry) i;
    }
  return self;
}

/**
 * ka_update_get_event:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:event.
 *
 * Returns: which event this is
 */
KaEventKind
ka_update_get_event (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), KA_EVENT_KIND_WILL_SHOW);
  return self->event;
}

/**
 * ka_update_get_show:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:show.
 *
 * Returns: the number of the keyboard's show, 0 when unknown
 */
guint
ka_update_get_show (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), 0);
  return self->show;
}

/**
 * ka_update_get_time:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:time.
 *
 * Returns: when the event was produced, in microseconds since 1970, 0 when unknown
 */
gint64
ka_update_get_time (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), 0);
  return self->time;
}

/**
 * ka_update_get_begin_frame:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:begin-frame.
 *
 * Returns: (transfer none) (nullable): where the transition began
 */
const KaRect *
ka_update_get_begin_frame (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), NULL);
  return self->begin_frame;
}

/**
 * ka_update_get_end_frame:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:end-frame.
 *
 * Returns: (transfer none) (nullable): where the transition ends
 */
const KaRect *
ka_update_get_end_frame (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), NULL);
  return self->end_frame;
}

/**
 * ka_update_get_end_frame_predicted:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:end-frame-predicted.
 *
 * Returns: whether the end frame is a prediction
 */
gboolean
ka_update_get_end_frame_predicted (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), FALSE);
  return self->end_frame_predicted;
}

/**
 * ka_update_get_animation_duration:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:animation-duration.
 *
 * Returns: the transition's length in seconds, 0 when it jumps or when unknown
 */
double
ka_update_get_animation_duration (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), 0);
  return self->animation_duration;
}

/**
 * ka_update_get_animation_curve:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:animation-curve.
 *
 * Returns: the transition's timing curve
 */
KaAnimationCurve
ka_update_get_animation_curve (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), KA_ANIMATION_CURVE_UNKNOWN);
  return self->animation_curve;
}

/**
 * ka_update_get_visible:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:visible.
 *
 * Returns: whether the keyboard is visible once the transition completes
 */
gboolean
ka_update_get_visible (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), FALSE);
  return self->visible;
}

/**
 * ka_update_get_docked:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:docked.
 *
 * Returns: whether the keyboard spans an edge of its output
 */
gboolean
ka_update_get_docked (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), FALSE);
  return self->docked;
}

/**
 * ka_update_get_local:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:local.
 *
 * Returns: whether the keyboard came up for the app's own window
 */
KaLocal
ka_update_get_local (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), KA_LOCAL_UNKNOWN);
  return self->local;
}

/**
 * ka_update_get_keyboard_name:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:keyboard-name.
 *
 * Returns: (transfer none) (nullable): the keyboard's name
 */
const char *
ka_update_get_keyboard_name (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), NULL);
  return self->keyboard_name;
}

/**
 * ka_update_get_keyboard_id:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:keyboard-id.
 *
 * Returns: (transfer none) (nullable): the keyboard's id
 */
const char *
ka_update_get_keyboard_id (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), NULL);
  return self->keyboard_id;
}

/**
 * ka_update_get_output_name:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:output-name.
 *
 * Returns: (transfer none) (nullable): the name of the keyboard's output
 */
const char *
ka_update_get_output_name (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), NULL);
  return self->output_name;
}

/**
 * ka_update_get_geometry:
 * @self: a #KaUpdate
 *
 * Gets #KaUpdate:geometry.
 *
 * Returns: how the frames were obtained
 */
KaGeometry
ka_update_get_geometry (KaUpdate *self)
{
  g_return_val_if_fail (KA_IS_UPDATE (self), KA_GEOMETRY_UNKNOWN);
  return self->geometry;
}

/**
 * KaProgress:
 *
 * One frame of a keyboard's transition (a slide), which #KaWatcher hands to its
 * #KaWatcher::progress signal while #KaWatcher:progress is %TRUE.
 */
struct _KaProgress {
  GObject parent_instance;

  KaEventKind transition;
  KaRect *frame;
  double elapsed;
  double fraction;
  KaLocal local;
  char *keyboard_name;
  char *keyboard_id;
};

G_DEFINE_FINAL_TYPE (KaProgress, ka_progress, G_TYPE_OBJECT)

enum {
  PROGRESS_PROP_0,
  PROGRESS_PROP_TRANSITION,
  PROGRESS_PROP_FRAME,
  PROGRESS_PROP_ELAPSED,
  PROGRESS_PROP_FRACTION,
  PROGRESS_PROP_LOCAL,
  PROGRESS_PROP_KEYBOARD_NAME,
  PROGRESS_PROP_KEYBOARD_ID,
  PROGRESS_N_PROPS
};

static GParamSpec *progress_properties[PROGRESS_N_PROPS];

static void
ka_progress_finalize (GObject *object)
{
  KaProgress *self = KA_PROGRESS (object);
  g_clear_pointer (&self->frame, ka_rect_free);
  g_clear_pointer (&self->keyboard_name, g_free);
  g_clear_pointer (&self->keyboard_id, g_free);
  G_OBJECT_CLASS (ka_progress_parent_class)->finalize (object);
}

static void
ka_progress_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  KaProgress *self = KA_PROGRESS (object);
  switch (id)
    {
    case PROGRESS_PROP_TRANSITION: g_value_set_enum (value, self->transition); break;
    case PROGRESS_PROP_FRAME: g_value_set_boxed (value, self->frame); break;
    case PROGRESS_PROP_ELAPSED: g_value_set_double (value, self->elapsed); break;
    case PROGRESS_PROP_FRACTION: g_value_set_double (value, self->fraction); break;
    case PROGRESS_PROP_LOCAL: g_value_set_enum (value, self->local); break;
    case PROGRESS_PROP_KEYBOARD_NAME: g_value_set_string (value, self->keyboard_name); break;
    case PROGRESS_PROP_KEYBOARD_ID: g_value_set_string (value, self->keyboard_id); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ka_progress_class_init (KaProgressClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = ka_progress_finalize;
  object_class->get_property = ka_progress_get_property;
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  /**
   * KaProgress:transition:
   *
   * The will event whose transition is under way.
   */
  progress_properties[PROGRESS_PROP_TRANSITION] = g_param_spec_enum (
      "transition", NULL, NULL, KA_TYPE_EVENT_KIND, KA_EVENT_KIND_WILL_SHOW, flags);
  /**
   * KaProgress:frame: (type KaRect)
   *
   * Where the keyboard is now, in the screen's pixels.
   */
  progress_properties[PROGRESS_PROP_FRAME] = g_param_spec_boxed ("frame", NULL, NULL, KA_TYPE_RECT, flags);
  /**
   * KaProgress:elapsed:
   *
   * Seconds since the transition's first frame.
   */
  progress_properties[PROGRESS_PROP_ELAPSED] = g_param_spec_double ("elapsed", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                                    flags);
  /**
   * KaProgress:fraction:
   *
   * How far the transition is, from 0 to 1; -1 when the destination is not known.
   */
  progress_properties[PROGRESS_PROP_FRACTION] = g_param_spec_double ("fraction", NULL, NULL, -1, 1, -1, flags);
  /**
   * KaProgress:local:
   *
   * Whether the keyboard came up for one of the app's own windows.
   */
  progress_properties[PROGRESS_PROP_LOCAL] = g_param_spec_enum ("local", NULL, NULL, KA_TYPE_LOCAL,
                                                                KA_LOCAL_UNKNOWN, flags);
  /**
   * KaProgress:keyboard-name:
   *
   * The keyboard's name; %NULL when unknown.
   */
  progress_properties[PROGRESS_PROP_KEYBOARD_NAME] = g_param_spec_string ("keyboard-name", NULL, NULL, NULL,
                                                                          flags);
  /**
   * KaProgress:keyboard-id:
   *
   * The keyboard's id; %NULL when unknown.
   */
  progress_properties[PROGRESS_PROP_KEYBOARD_ID] = g_param_spec_string ("keyboard-id", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, PROGRESS_N_PROPS, progress_properties);
}

static void
ka_progress_init (KaProgress *self)
{
  self->fraction = -1;
}

KaProgress *
ka_progress_new_from_variant (GVariant *progress, KaLocal local)
{
  g_return_val_if_fail (g_variant_is_of_type (progress, G_VARIANT_TYPE_VARDICT), NULL);
  const char *transition = NULL;
  KaEventKind kind;
  if (!g_variant_lookup (progress, "transition", "&s", &transition) || !event_kind_from_string (transition, &kind))
    return NULL;
  g_autoptr (KaRect) frame = rect_lookup (progress, "frame");
  if (frame == NULL)
    return NULL;
  KaProgress *self = g_object_new (KA_TYPE_PROGRESS, NULL);
  self->transition = kind;
  self->frame = g_steal_pointer (&frame);
  self->local = local;
  double value;
  if (g_variant_lookup (progress, "elapsed", "d", &value) && value >= 0 && value < 3600)
    self->elapsed = value;
  if (g_variant_lookup (progress, "fraction", "d", &value) && value >= 0 && value <= 1)
    self->fraction = value;
  self->keyboard_name = nested_string (progress, "keyboard", "name");
  self->keyboard_id = nested_string (progress, "keyboard", "id");
  return self;
}

/**
 * ka_progress_get_transition:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:transition.
 *
 * Returns: the will event whose transition is under way
 */
KaEventKind
ka_progress_get_transition (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), KA_EVENT_KIND_WILL_SHOW);
  return self->transition;
}

/**
 * ka_progress_get_frame:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:frame.
 *
 * Returns: (transfer none): where the keyboard is now
 */
const KaRect *
ka_progress_get_frame (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), NULL);
  return self->frame;
}

/**
 * ka_progress_get_elapsed:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:elapsed.
 *
 * Returns: seconds since the transition's first frame
 */
double
ka_progress_get_elapsed (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), 0);
  return self->elapsed;
}

/**
 * ka_progress_get_fraction:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:fraction.
 *
 * Returns: how far the transition is (0 to 1), -1 when unknown
 */
double
ka_progress_get_fraction (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), -1);
  return self->fraction;
}

/**
 * ka_progress_get_local:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:local.
 *
 * Returns: whether the keyboard came up for the app's own window
 */
KaLocal
ka_progress_get_local (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), KA_LOCAL_UNKNOWN);
  return self->local;
}

/**
 * ka_progress_get_keyboard_name:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:keyboard-name.
 *
 * Returns: (transfer none) (nullable): the keyboard's name
 */
const char *
ka_progress_get_keyboard_name (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), NULL);
  return self->keyboard_name;
}

/**
 * ka_progress_get_keyboard_id:
 * @self: a #KaProgress
 *
 * Gets #KaProgress:keyboard-id.
 *
 * Returns: (transfer none) (nullable): the keyboard's id
 */
const char *
ka_progress_get_keyboard_id (KaProgress *self)
{
  g_return_val_if_fail (KA_IS_PROGRESS (self), NULL);
  return self->keyboard_id;
}
