/* libsystemd, loaded when a session bus is first used rather than at program start: a process
   that never talks to a keyboard service (no session bus, a kiosk without one) does not map
   libsystemd and the libraries it pulls in, and runs where libsystemd is missing. Each sd-bus
   function the package uses (KA_SD_BUS_FUNCTIONS in CSystemdBus.h) is looked up into a pointer of
   the type its header declares, and called through a function of the package's own name,
   ka_<name>: the package defines no function of libsystemd's, so an app that uses sd-bus itself
   keeps calling libsystemd's own. */
#include "CSystemdBus.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define KA_POINTER(type, name, parameters, arguments, fallback) static __typeof__(name) *loaded_##name;
KA_SD_BUS_FUNCTIONS(KA_POINTER)
static __typeof__(sd_bus_error_free) *loaded_sd_bus_error_free;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[256];

static void load(void) {
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : "libsystemd.so.0 cannot be loaded");
        return;
    }
#define KA_RESOLVE(type, name, parameters, arguments, fallback)                                             \
    *(void **)(&loaded_##name) = dlsym(library, #name);                                                    \
    if (loaded_##name == NULL) {                                                                           \
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks %s", #name);                             \
        return;                                                                                            \
    }
    KA_SD_BUS_FUNCTIONS(KA_RESOLVE)
    *(void **)(&loaded_sd_bus_error_free) = dlsym(library, "sd_bus_error_free");
    if (loaded_sd_bus_error_free == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_error_free");
        return;
    }
    loaded = 1;
}

int ka_bus_library_load(const char **error) {
    pthread_once(&once, load);
    if (loaded) return 0;
    *error = failure;
    return -ENOENT;
}

#define KA_FORWARD(type, name, parameters, arguments, fallback)                                             \
    type ka_##name parameters {                                                                            \
        if (loaded_##name == NULL) return fallback;                                                        \
        return loaded_##name arguments;                                                                    \
    }
KA_SD_BUS_FUNCTIONS(KA_FORWARD)

void ka_bus_error_free(sd_bus_error *error) {
    if (loaded_sd_bus_error_free != NULL) loaded_sd_bus_error_free(error);
}
