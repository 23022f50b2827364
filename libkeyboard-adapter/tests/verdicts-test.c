/* The Verdict rules, as docs/service.md states them. */
#include "ka-private.h"

static KaLocal
local_of (const KaVerdicts *verdicts, guint show)
{
  KaLocal local = KA_LOCAL_UNKNOWN;
  g_assert_true (ka_verdicts_lookup (verdicts, show, &local, NULL));
  return local;
}

/* The last Verdict for a show up to N gives the local of an Event of show N; an Event with
 * none was sent before the subscription. */
static void
test_last_up_to (void)
{
  KaVerdicts verdicts;
  ka_verdicts_init (&verdicts);
  KaLocal local;
  g_assert_false (ka_verdicts_lookup (&verdicts, 1, &local, NULL));
  ka_verdicts_add (&verdicts, 3, KA_LOCAL_TRUE, NULL);
  g_assert_false (ka_verdicts_lookup (&verdicts, 2, &local, NULL));
  g_assert_cmpint (local_of (&verdicts, 3), ==, KA_LOCAL_TRUE);
  g_assert_cmpint (local_of (&verdicts, 4), ==, KA_LOCAL_TRUE);
  ka_verdicts_add (&verdicts, 6, KA_LOCAL_FALSE, NULL);
  g_assert_cmpint (local_of (&verdicts, 5), ==, KA_LOCAL_TRUE);
  g_assert_cmpint (local_of (&verdicts, 6), ==, KA_LOCAL_FALSE);
  g_assert_cmpint (local_of (&verdicts, 9), ==, KA_LOCAL_FALSE);
  ka_verdicts_add (&verdicts, 8, KA_LOCAL_UNKNOWN, NULL);
  g_assert_cmpint (local_of (&verdicts, 7), ==, KA_LOCAL_FALSE);
  g_assert_cmpint (local_of (&verdicts, 8), ==, KA_LOCAL_UNKNOWN);
  ka_verdicts_clear (&verdicts);
}

/* A Verdict for a show not after the last one replaces the verdicts from that show on (a
 * second Subscribe's, for the keyboard up then). */
static void
test_replaces_from_its_show_on (void)
{
  KaVerdicts verdicts;
  ka_verdicts_init (&verdicts);
  ka_verdicts_add (&verdicts, 2, KA_LOCAL_TRUE, NULL);
  ka_verdicts_add (&verdicts, 5, KA_LOCAL_FALSE, NULL);
  ka_verdicts_add (&verdicts, 7, KA_LOCAL_TRUE, NULL);
  ka_verdicts_add (&verdicts, 5, KA_LOCAL_UNKNOWN, NULL);
  g_assert_cmpint (local_of (&verdicts, 4), ==, KA_LOCAL_TRUE);
  g_assert_cmpint (local_of (&verdicts, 5), ==, KA_LOCAL_UNKNOWN);
  g_assert_cmpint (local_of (&verdicts, 8), ==, KA_LOCAL_UNKNOWN);
  ka_verdicts_add (&verdicts, 1, KA_LOCAL_FALSE, NULL);
  g_assert_cmpint (local_of (&verdicts, 1), ==, KA_LOCAL_FALSE);
  g_assert_cmpint (local_of (&verdicts, 8), ==, KA_LOCAL_FALSE);
  ka_verdicts_add (&verdicts, 1, KA_LOCAL_TRUE, NULL);
  g_assert_cmpint (local_of (&verdicts, 1), ==, KA_LOCAL_TRUE);
  ka_verdicts_clear (&verdicts);
}

/* However many shows a long session has, the bookkeeping stays bounded. */
static void
test_bounded (void)
{
  KaVerdicts verdicts;
  ka_verdicts_init (&verdicts);
  for (guint show = 1; show <= 10000; show++)
    ka_verdicts_add (&verdicts, show, show % 2 ? KA_LOCAL_TRUE : KA_LOCAL_FALSE, NULL);
  g_assert_cmpuint (verdicts.verdicts->len, <=, 65);
  g_assert_cmpint (local_of (&verdicts, 10000), ==, KA_LOCAL_FALSE);
  g_assert_cmpint (local_of (&verdicts, 9999), ==, KA_LOCAL_TRUE);
  ka_verdicts_clear (&verdicts);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/verdicts/last-up-to", test_last_up_to);
  g_test_add_func ("/verdicts/replaces-from-its-show-on", test_replaces_from_its_show_on);
  g_test_add_func ("/verdicts/bounded", test_bounded);
  return g_test_run ();
}
