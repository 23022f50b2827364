/* ka-rect.h: a rectangle on screen. */
#pragma once

#if !defined(KEYBOARD_ADAPTER_INSIDE) && !defined(KEYBOARD_ADAPTER_COMPILATION)
#error "Only <keyboard-adapter.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

#define KA_TYPE_RECT (ka_rect_get_type ())

/**
 * KaRect:
 * @x: the left edge, in the screen's pixels
 * @y: the top edge, in the screen's pixels
 * @width: the width, in pixels
 * @height: the height, in pixels

 * A rectangle in the screen's pixels, as the session service gives a keyboard's frames
 * (an `(iiii)`). An empty one (no width or no height) stands for no keyboard.
 */
typedef struct _KaRect KaRect;

struct _KaRect {
  int x;
  int y;
  int width;
  int height;
};

GType ka_rect_get_type (void) G_GNUC_CONST;
KaRect *ka_rect_new (int x, int y, int width, int height);
KaRect *ka_rect_copy (const KaRect *rect);
void ka_rect_free (KaRect *rect);
gboolean ka_rect_equal (const KaRect *a, const KaRect *b);
gboolean ka_rect_is_empty (const KaRect *rect);
char *ka_rect_to_string (const KaRect *rect);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KaRect, ka_rect_free)

G_END_DECLS
