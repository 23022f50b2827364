/* ka-verdicts.c: which local applies to which show (the session service's Verdict rules). */
#include "ka-private.h"

typedef struct {
  guint show;
  KaLocal local;
  KaRect window;
} Verdict;

void
ka_verdicts_init (KaVerdicts *verdicts)
{
  verdicts->verdicts = g_array_new (FALSE, FALSE, sizeof (Verdict));
}

void
ka_verdicts_clear (KaVerdicts *verdicts)
{
  g_clear_pointer (&verdicts->verdicts, g_array_unref);
}

void
ka_verdicts_add (KaVerdicts *verdicts, guint show, KaLocal local, const KaRect *window)
{
  guint kept = verdicts->verdicts->len;
  while (kept > 0 && g_array_index (verdicts->verdicts, Verdict, kept - 1).show >= show)
    kept--;
  g_array_set_size (verdicts->verdicts, kept);
  /* Those before the oldest show an Event can still be of are never asked for again. */
  if (kept > 64)
    g_array_remove_range (verdicts->verdicts, 0, kept - 64);
  Verdict verdict = { show, local, { 0, 0, 0, 0 } };
  if (window != NULL)
    verdict.window = *window;
  g_array_append_val (verdicts->verdicts, verdict);
}

gboolean
ka_verdicts_lookup (const KaVerdicts *verdicts, guint show, KaLocal *local, KaRect *window)
{
  for (guint i = verdicts->verdicts->len; i > 0; i--)
    {
      const Verdict *verdict = &g_array_index (verdicts->verdicts, Verdict, i - 1);
      if (verdict->show <= show)
        {
          *local = verdict->local;
          if (window != NULL)
            *window = verdict->window;
          return TRUE;
        }
    }
  return FALSE;
}
