/* ka-private.h: what the library's files share and apps do not see. */
#pragma once

#include "keyboard-adapter.h"

G_BEGIN_DECLS

#define KA_SERVICE_NAME "org.keyboardadapter.Watcher"
#define KA_SERVICE_PATH "/org/keyboardadapter/Watcher"
#define KA_SERVICE_INTERFACE "org.keyboardadapter.Watcher2"

/* An update (a{sv}) of the service as a KaUpdate, local as given; NULL when it is not one
 * (no event, or an event this library does not know). */
KaUpdate *ka_update_new_from_variant (GVariant *update, KaLocal local);
/* A progress frame (a{sv}) as a KaProgress; NULL when it has no transition or frame. */
KaProgress *ka_progress_new_from_variant (GVariant *progress, KaLocal local);
/* The local of a dictionary's "local" key: unknown when it is left out. */
KaLocal ka_local_from_variant (GVariant *dictionary);

/* The code of a service's D-Bus error name (org.keyboardadapter.Watcher2.Error.*). */
gboolean ka_error_code_for_name (const char *name, KaError *code);

/* The Verdict bookkeeping of one subscription: (show, local, window) triples, shows
 * increasing; window is where the display server shows the app's window (empty when the
 * verdict holds none). */
typedef struct {
  GArray *verdicts;
} KaVerdicts;

void ka_verdicts_init (KaVerdicts *verdicts);
void ka_verdicts_clear (KaVerdicts *verdicts);
/* A Verdict for `show`: it replaces those for `show` and later ones. */
void ka_verdicts_add (KaVerdicts *verdicts, guint show, KaLocal local, const KaRect *window);
/* The local of an Event of `show`: the last Verdict for a show up to it, and its window when
 * `window` is not NULL. FALSE when there is none (the event was sent before the subscription). */
gboolean ka_verdicts_lookup (const KaVerdicts *verdicts, guint show, KaLocal *local, KaRect *window);

G_END_DECLS
