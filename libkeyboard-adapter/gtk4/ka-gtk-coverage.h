/* ka-gtk-coverage.h: the part of a GTK 4 window the keyboard covers. */
#pragma once

#if !defined(KEYBOARD_ADAPTER_GTK4_INSIDE) && !defined(KEYBOARD_ADAPTER_GTK4_COMPILATION)
#error "Only <keyboard-adapter-gtk4.h> can be included directly."
#endif

#include <gtk/gtk.h>
#include <keyboard-adapter.h>

G_BEGIN_DECLS

#define KA_GTK_TYPE_COVERAGE (ka_gtk_coverage_get_type ())
G_DECLARE_FINAL_TYPE (KaGtkCoverage, ka_gtk_coverage, KA_GTK, COVERAGE, GObject)

KaGtkCoverage *ka_gtk_coverage_new (KaWatcher *watcher, GtkWindow *window);
KaWatcher *ka_gtk_coverage_get_watcher (KaGtkCoverage *self);
GtkWindow *ka_gtk_coverage_get_window (KaGtkCoverage *self);
gboolean ka_gtk_coverage_get_known (KaGtkCoverage *self);
const KaRect *ka_gtk_coverage_get_covered (KaGtkCoverage *self);
int ka_gtk_coverage_get_bottom_inset (KaGtkCoverage *self);

G_END_DECLS
