/* ka-rect.c: a rectangle on screen. */
#include "ka-private.h"

G_DEFINE_BOXED_TYPE (KaRect, ka_rect, ka_rect_copy, ka_rect_free)

/**
 * ka_rect_new:
 * @x: the left edge
 * @y: the top edge
 * @width: the width
 * @height: the height
 *
 * Makes a rectangle.
 *
 * Returns: (transfer full): a new #KaRect, freed with ka_rect_free()
 */
KaRect *
ka_rect_new (int x, int y, int width, int height)
{
  KaRect *rect = g_new (KaRect, 1);
  *rect = (KaRect) { x, y, width, height };
  return rect;
}

/**
 * ka_rect_copy:
 * @rect: a #KaRect
 *
 * Copies a rectangle.
 *
 * Returns: (transfer full): a copy of @rect, freed with ka_rect_free()
 */
KaRect *
ka_rect_copy (const KaRect *rect)
{
  g_return_val_if_fail (rect != NULL, NULL);
  return g_memdup2 (rect, sizeof *rect);
}

/**
 * ka_rect_free:
 * @rect: (nullable): a #KaRect
 *
 * Frees a rectangle made by ka_rect_new() or ka_rect_copy().
 */
void
ka_rect_free (KaRect *rect)
{
  g_free (rect);
}

/**
 * ka_rect_equal:
 * @a: a #KaRect
 * @b: another #KaRect
 *
 * Whether two rectangles are the same.
 *
 * Returns: %TRUE when @a and @b have the same position and size
 */
gboolean
ka_rect_equal (const KaRect *a, const KaRect *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  return a->x == b->x && a->y == b->y && a->width == b->width && a->height == b->height;
}

/**
 * ka_rect_is_empty:
 * @rect: a #KaRect
 *
 * Whether a rectangle covers nothing.
 *
 * Returns: %TRUE when @rect has no width or no height
 */
gboolean
ka_rect_is_empty (const KaRect *rect)
{
  g_return_val_if_fail (rect != NULL, TRUE);
  return rect->width <= 0 || rect->height <= 0;
}

/**
 * ka_rect_to_string:
 * @rect: a #KaRect
 *
 * Writes a rectangle as kbwatch does: `X,Y WxH`.
 *
 * Returns: (transfer full): the text, freed with g_free()
 */
char *
ka_rect_to_string (const KaRect *rect)
{
  g_return_val_if_fail (rect != NULL, NULL);
  return g_strdup_printf ("%d,%d %dx%d", rect->x, rect->y, rect->width, rect->height);
}
