/* The X libraries, loaded at their first use (see CX11Loader.h): every function is looked up with
   dlsym() into a table whose fields have the types the libraries' headers declare, so the compiler
   checks each call, and the package defines no function of theirs. */
#include "loaded.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct ka_x11_library x11_table;
static struct ka_xkb_library xkb_table;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[320];

static const char *const names[] = {"libX11.so.6", "libX11-xcb.so.1", "libXrandr.so.2", "libxkbcommon-x11.so.0"};
enum { x11, x11xcb, xrandr, xkbx11, library_count };

static void load(void) {
    void *libraries[library_count];
    for (int index = 0; index < library_count; index++) {
        /* RTLD_GLOBAL: the libraries' own dependencies among themselves resolve as when linked. */
        libraries[index] = dlopen(names[index], RTLD_NOW | RTLD_GLOBAL);
        if (libraries[index] == NULL) {
            const char *reason = dlerror();
            snprintf(failure, sizeof failure, "%s", reason ? reason : names[index]);
            return;
        }
    }
#define KA_RESOLVE(table, library, name)                                                                 \
    *(void **)(&table.name) = dlsym(libraries[library], #name);                                          \
    if (*(void **)(&table.name) == NULL) {                                                               \
        snprintf(failure, sizeof failure, "%s lacks %s", names[library], #name);                        \
        return;                                                                                          \
    }
#define KA_RESOLVE_X11(library, name) KA_RESOLVE(x11_table, library, name)
#define KA_RESOLVE_XKB(library, name) KA_RESOLVE(xkb_table, library, name)
    KA_X11_LIBRARY_FUNCTIONS(KA_RESOLVE_X11)
    KA_XKB_LIBRARY_FUNCTIONS(KA_RESOLVE_XKB)
    /* The tables are filled before `loaded` is set, and read only after it was seen set. */
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

static int ready(void) {
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) return 1;
    pthread_once(&once, load);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}

const struct ka_x11_library *ka_x11_library(void) { return ready() ? &x11_table : NULL; }

const struct ka_xkb_library *ka_xkb_library(void) { return ready() ? &xkb_table : NULL; }

const char *ka_x11_library_failure(void) { return ready() ? NULL : failure; }
