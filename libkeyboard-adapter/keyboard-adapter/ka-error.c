/* ka-error.c: the error domain, and the service's error names in it. */
#include "ka-private.h"

static const GDBusErrorEntry entries[] = {
  { KA_ERROR_FAILED, KA_SERVICE_INTERFACE ".Error.Failed" },
  { KA_ERROR_NOT_VISIBLE, KA_SERVICE_INTERFACE ".Error.NotVisible" },
  { KA_ERROR_UNSUPPORTED, KA_SERVICE_INTERFACE ".Error.Unsupported" },
  { KA_ERROR_LIMITS_EXCEEDED, KA_SERVICE_INTERFACE ".Error.LimitsExceeded" },
  { KA_ERROR_NO_DISPLAY, KA_SERVICE_INTERFACE ".Error.NoDisplay" },
};

/**
 * ka_error_quark:
 *
 * The error domain of libkeyboard-adapter, %KA_ERROR. Its codes are #KaError; the
 * service's D-Bus errors are registered in it, so a call's error carries the code.
 *
 * Returns: the quark
 */
GQuark
ka_error_quark (void)
{
  static gsize quark = 0;
  g_dbus_error_register_error_domain ("ka-error-quark", &quark, entries, G_N_ELEMENTS (entries));
  return (GQuark) quark;
}

gboolean
ka_error_code_for_name (const char *name, KaError *code)
{
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    if (g_strcmp0 (name, entries[i].dbus_error_name) == 0)
      {
        *code = (KaError) entries[i].error_code;
        return TRUE;
      }
  return FALSE;
}
