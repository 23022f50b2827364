/* ka-gtk-coverage.c: the part of a GTK 4 window the keyboard covers, where the display server
 * tells the window's place (X11; GNOME, whose shell moves the window itself), and an honest
 * unknown where it does not (other Wayland compositors). */
#include "keyboard-adapter-gtk4.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

/**
 * KaGtkCoverage:
 *
 * The part of a #GtkWindow that the on-screen keyboard covers, in the window's own
 * coordinates (those its widgets are laid out in, inside the shadow and the invisible borders
 * GTK draws around a window with client-side decorations), from a #KaWatcher's
 * #KaWatcher:keyboard-rectangle.
 *
 * A client learns where its window is on screen only where the display server says: on X11
 * the coverage asks the X server, and follows the window's moves as the window manager reports
 * them (the `ConfigureNotify` it sends), without polling. On Wayland no client knows its
 * window's place, but GNOME Shell, which moves the focused window up out of its keyboard's
 * way when the keyboard would cover the window's text cursor, tells the session service where
 * it shows the window (#KaWatcher:focus-window, through the package's extension): while a
 * keyboard that came up for the app is visible, the coverage measures the window there, so
 * a window the shell slid up is covered by nothing and its bar needs no room (and a window
 * left in place, #KaWatcher:leave-in-place, is covered where the keyboard is). Elsewhere on
 * Wayland #KaGtkCoverage:known stays %FALSE and #KaGtkCoverage:covered empty, and the app
 * decides (a window that fills its monitor from the top, as a chat screen does there, may
 * take the keyboard's rectangle as it is).
 */
struct _KaGtkCoverage {
  GObject parent_instance;

  KaWatcher *watcher;
  GtkWindow *window;
  GdkSurface *surface;
  gulong surface_layout_id;
  GdkDisplay *display;
  gulong xevent_id;
  guint update_source;

  gboolean known;
  KaRect covered;
  int bottom_inset;
};

G_DEFINE_FINAL_TYPE (KaGtkCoverage, ka_gtk_coverage, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_WATCHER,
  PROP_WINDOW,
  PROP_KNOWN,
  PROP_COVERED,
  PROP_BOTTOM_INSET,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The window's content on screen, in GTK's (logical) pixels; FALSE where it is not known. */
static gboolean
window_on_screen (KaGtkCoverage *self, int *scale, KaRect *content)
{
  if (self->window == NULL || !gtk_widget_get_realized (GTK_WIDGET (self->window)))
    return FALSE;
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (self->window));
#ifdef GDK_WINDOWING_X11
  if (surface != NULL && GDK_IS_X11_SURFACE (surface))
    {
      GdkDisplay *display = gdk_surface_get_display (surface);
      Display *xdisplay = gdk_x11_display_get_xdisplay (display);
      Window child;
      int x = 0, y = 0;
      gdk_x11_display_error_trap_push (display);
      Bool translated = XTranslateCoordinates (xdisplay, gdk_x11_surface_get_xid (surface),
                                               gdk_x11_display_get_xrootwindow (display), 0, 0, &x, &y, &child);
      if (gdk_x11_display_error_trap_pop (display) != 0 || !translated)
        return FALSE;
      /* The window's widgets are laid out from this point of its surface (its shadow's width). */
      double dx = 0, dy = 0;
      gtk_native_get_surface_transform (GTK_NATIVE (self->window), &dx, &dy);
      *scale = MAX (1, gdk_surface_get_scale_factor (surface));
      *content = (KaRect) { x / *scale + (int) dx, y / *scale + (int) dy, gtk_widget_get_width (GTK_WIDGET (self->window)),
                            gtk_widget_get_height (GTK_WIDGET (self->window)) };
      return TRUE;
    }
#endif
  /* Where GNOME Shell shows the window while a keyboard that came up for it is visible (its
   * frame, which is where the window's widgets are laid out from). */
  const KaRect *shown = self->watcher != NULL ? ka_watcher_get_focus_window (self->watcher) : NULL;
  if (shown != NULL && !ka_rect_is_empty (shown))
    {
      *scale = 1;
      *content = *shown;
      return TRUE;
    }
  return FALSE;
}

static void
update (KaGtkCoverage *self)
{
  int scale = 1;
  KaRect content = { 0, 0, 0, 0 };
  gboolean known = window_on_screen (self, &scale, &content);
  KaRect covered = { 0, 0, 0, 0 };
  int inset = 0;
  const KaRect *keyboard = self->watcher != NULL ? ka_watcher_get_keyboard_rectangle (self->watcher) : NULL;
  if (known && keyboard != NULL && !ka_rect_is_empty (keyboard))
    {
      /* The keyboard's frame is in the screen's pixels; the window's in GTK's. */
      int left = MAX (keyboard->x / scale, content.x);
      int top = MAX (keyboard->y / scale, content.y);
      int right = MIN ((keyboard->x + keyboard->width) / scale, content.x + content.width);
      int bottom = MIN ((keyboard->y + keyboard->height) / scale, content.y + content.height);
      if (right > left && bottom > top)
        {
          covered = (KaRect) { left - content.x, top - content.y, right - left, bottom - top };
          inset = content.height - covered.y;
        }
    }
  GObject *object = G_OBJECT (self);
  g_object_freeze_notify (object);
  if (known != self->known)
    {
      self->known = known;
      g_object_notify_by_pspec (object, properties[PROP_KNOWN]);
    }
  if (!ka_rect_equal (&covered, &self->covered))
    {
      self->covered = covered;
      g_object_notify_by_pspec (object, properties[PROP_COVERED]);
    }
  if (inset != self->bottom_inset)
    {
      self->bottom_inset = inset;
      g_object_notify_by_pspec (object, properties[PROP_BOTTOM_INSET]);
    }
  g_object_thaw_notify (object);
}

static gboolean
on_update_idle (gpointer user_data)
{
  KaGtkCoverage *self = user_data;
  self->update_source = 0;
  update (self);
  return G_SOURCE_REMOVE;
}

/* Once the main loop has handled what is pending (a move arrives as several events). */
static void
schedule_update (KaGtkCoverage *self)
{
  if (self->update_source == 0)
    self->update_source = g_idle_add (on_update_idle, self);
}

static void
on_changed (KaGtkCoverage *self)
{
  schedule_update (self);
}

#ifdef GDK_WINDOWING_X11
static gboolean
on_xevent (GdkX11Display *display, gpointer xevent, KaGtkCoverage *self)
{
  const XEvent *event = xevent;
  (void) display;
  /* The window manager tells a window it moved with a ConfigureNotify (ICCCM 4.1.5). */
  if (event->type == ConfigureNotify && self->surface != NULL
      && event->xconfigure.window == gdk_x11_surface_get_xid (self->surface))
    schedule_update (self);
  return GDK_EVENT_PROPAGATE;
}
#endif

static void
forget_surface (KaGtkCoverage *self)
{
  if (self->surface != NULL)
    {
      g_clear_signal_handler (&self->surface_layout_id, self->surface);
      g_clear_object (&self->surface);
    }
  if (self->display != NULL)
    {
      g_clear_signal_handler (&self->xevent_id, self->display);
      g_clear_object (&self->display);
    }
}

static void
on_realize (KaGtkCoverage *self)
{
  forget_surface (self);
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (self->window));
  if (surface != NULL)
    {
      self->surface = g_object_ref (surface);
      self->surface_layout_id = g_signal_connect_swapped (surface, "layout", G_CALLBACK (on_changed), self);
#ifdef GDK_WINDOWING_X11
      if (GDK_IS_X11_SURFACE (surface))
        {
          self->display = g_object_ref (gdk_surface_get_display (surface));
          self->xevent_id = g_signal_connect (self->display, "xevent", G_CALLBACK (on_xevent), self);
        }
#endif
    }
  schedule_update (self);
}

static void
on_unrealize (KaGtkCoverage *self)
{
  forget_surface (self);
  schedule_update (self);
}

static void
ka_gtk_coverage_constructed (GObject *object)
{
  KaGtkCoverage *self = KA_GTK_COVERAGE (object);
  G_OBJECT_CLASS (ka_gtk_coverage_parent_class)->constructed (object);
  g_return_if_fail (self->watcher != NULL && self->window != NULL);
  g_signal_connect_object (self->watcher, "notify::keyboard-rectangle", G_CALLBACK (on_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->watcher, "notify::focus-window", G_CALLBACK (on_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->window, "realize", G_CALLBACK (on_realize), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->window, "unrealize", G_CALLBACK (on_unrealize), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->window, "map", G_CALLBACK (on_changed), self, G_CONNECT_SWAPPED);
  if (gtk_widget_get_realized (GTK_WIDGET (self->window)))
    on_realize (self);
}

static void
ka_gtk_coverage_dispose (GObject *object)
{
  KaGtkCoverage *self = KA_GTK_COVERAGE (object);
  g_clear_handle_id (&self->update_source, g_source_remove);
  forget_surface (self);
  g_clear_object (&self->watcher);
  g_clear_weak_pointer (&self->window);
  G_OBJECT_CLASS (ka_gtk_coverage_parent_class)->dispose (object);
}

static void
ka_gtk_coverage_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  KaGtkCoverage *self = KA_GTK_COVERAGE (object);
  switch (id)
    {
    case PROP_WATCHER: g_value_set_object (value, self->watcher); break;
    case PROP_WINDOW: g_value_set_object (value, self->window); break;
    case PROP_KNOWN: g_value_set_boolean (value, self->known); break;
    case PROP_COVERED: g_value_set_boxed (value, &self->covered); break;
    case PROP_BOTTOM_INSET: g_value_set_int (value, self->bottom_inset); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ka_gtk_coverage_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  KaGtkCoverage *self = KA_GTK_COVERAGE (object);
  switch (id)
    {
    case PROP_WATCHER: self->watcher = g_value_dup_object (value); break;
    case PROP_WINDOW: g_set_weak_pointer (&self->window, g_value_get_object (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ka_gtk_coverage_class_init (KaGtkCoverageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->constructed = ka_gtk_coverage_constructed;
  object_class->dispose = ka_gtk_coverage_dispose;
  object_class->get_property = ka_gtk_coverage_get_property;
  object_class->set_property = ka_gtk_coverage_set_property;
  const GParamFlags construct = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;
  const GParamFlags readable = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  /**
   * KaGtkCoverage:watcher:
   *
   * The watcher whose #KaWatcher:keyboard-rectangle is measured against the window.
   */
  properties[PROP_WATCHER] = g_param_spec_object ("watcher", NULL, NULL, KA_TYPE_WATCHER, construct);
  /**
   * KaGtkCoverage:window:
   *
   * The window measured (not kept alive by the coverage).
   */
  properties[PROP_WINDOW] = g_param_spec_object ("window", NULL, NULL, GTK_TYPE_WINDOW, construct);
  /**
   * KaGtkCoverage:known:
   *
   * Whether the window's place on screen is known: %TRUE on X11 once the window is realized,
   * and on GNOME while a keyboard that came up for the app is visible
   * (#KaWatcher:focus-window); %FALSE elsewhere on Wayland, where no client knows it.
   */
  properties[PROP_KNOWN] = g_param_spec_boolean ("known", NULL, NULL, FALSE, readable);
  /**
   * KaGtkCoverage:covered: (type KaRect)
   *
   * The part of the window the keyboard covers (or is going to cover: the keyboard's end
   * frame), in the window's coordinates; empty when no keyboard covers it, or when
   * #KaGtkCoverage:known is %FALSE.
   */
  properties[PROP_COVERED] = g_param_spec_boxed ("covered", NULL, NULL, KA_TYPE_RECT, readable);
  /**
   * KaGtkCoverage:bottom-inset:
   *
   * How far up from the window's bottom edge the keyboard reaches (the window's height less
   * the top of #KaGtkCoverage:covered): what an entry bar at the bottom is lifted by; 0 when
   * nothing is covered.
   */
  properties[PROP_BOTTOM_INSET] = g_param_spec_int ("bottom-inset", NULL, NULL, 0, G_MAXINT, 0, readable);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ka_gtk_coverage_init (KaGtkCoverage *self)
{
  (void) self;
}

/**
 * ka_gtk_coverage_new:
 * @watcher: the watcher of the keyboards
 * @window: the window to measure
 *
 * Measures @window against @watcher's keyboard, from now on.
 *
 * Returns: (transfer full): a new #KaGtkCoverage
 */
KaGtkCoverage *
ka_gtk_coverage_new (KaWatcher *watcher, GtkWindow *window)
{
  g_return_val_if_fail (KA_IS_WATCHER (watcher), NULL);
  g_return_val_if_fail (GTK_IS_WINDOW (window), NULL);
  return g_object_new (KA_GTK_TYPE_COVERAGE, "watcher", watcher, "window", window, NULL);
}

/**
 * ka_gtk_coverage_get_watcher:
 * @self: a #KaGtkCoverage
 *
 * Gets #KaGtkCoverage:watcher.
 *
 * Returns: (transfer none): the watcher
 */
KaWatcher *
ka_gtk_coverage_get_watcher (KaGtkCoverage *self)
{
  g_return_val_if_fail (KA_GTK_IS_COVERAGE (self), NULL);
  return self->watcher;
}

/**
 * ka_gtk_coverage_get_window:
 * @self: a #KaGtkCoverage
 *
 * Gets #KaGtkCoverage:window.
 *
 * Returns: (transfer none) (nullable): the window, %NULL once it is gone
 */
GtkWindow *
ka_gtk_coverage_get_window (KaGtkCoverage *self)
{
  g_return_val_if_fail (KA_GTK_IS_COVERAGE (self), NULL);
  return self->window;
}

/**
 * ka_gtk_coverage_get_known:
 * @self: a #KaGtkCoverage
 *
 * Gets #KaGtkCoverage:known.
 *
 * Returns: whether the window's place on screen is known
 */
gboolean
ka_gtk_coverage_get_known (KaGtkCoverage *self)
{
  g_return_val_if_fail (KA_GTK_IS_COVERAGE (self), FALSE);
  return self->known;
}

/**
 * ka_gtk_coverage_get_covered:
 * @self: a #KaGtkCoverage
 *
 * Gets #KaGtkCoverage:covered.
 *
 * Returns: (transfer none): the part of the window the keyboard covers, in its coordinates
 */
const KaRect *
ka_gtk_coverage_get_covered (KaGtkCoverage *self)
{
  g_return_val_if_fail (KA_GTK_IS_COVERAGE (self), NULL);
  return &self->covered;
}

/**
 * ka_gtk_coverage_get_bottom_inset:
 * @self: a #KaGtkCoverage
 *
 * Gets #KaGtkCoverage:bottom-inset.
 *
 * Returns: how far up from the window's bottom the keyboard reaches
 */
int
ka_gtk_coverage_get_bottom_inset (KaGtkCoverage *self)
{
  g_return_val_if_fail (KA_GTK_IS_COVERAGE (self), 0);
  return self->bottom_inset;
}
