/* Which process a window's client is, as the X server knows it (the X-Resource extension, 1.2:
   the server reads the peer's credentials of a local connection). libXRes is loaded apart from
   the other X libraries, at its first use: without it nothing else fails, and no process is known.
   Its functions are kept under this file's own names, never defined under the library's. */
#include "CX11Loader.h"

#include <X11/Xlib.h>
#include <X11/extensions/XRes.h>
#include <dlfcn.h>
#include <pthread.h>

static Bool (*query_extension)(Display *, int *, int *);
static Status (*query_version)(Display *, int *, int *);
static Status (*query_client_ids)(Display *, long, XResClientIdSpec *, long *, XResClientIdValue **);
static pid_t (*client_pid)(XResClientIdValue *);
static void (*destroy_client_ids)(long, XResClientIdValue *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;

static void load(void) {
    /* The X libraries first: libXRes resolves its Xlib symbols against the copy they loaded. */
    if (ka_x11_library() == NULL) return;
    void *library = dlopen("libXRes.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) return;
    *(void **)(&query_extension) = dlsym(library, "XResQueryExtension");
    *(void **)(&query_version) = dlsym(library, "XResQueryVersion");
    *(void **)(&query_client_ids) = dlsym(library, "XResQueryClientIds");
    *(void **)(&client_pid) = dlsym(library, "XResGetClientPid");
    *(void **)(&destroy_client_ids) = dlsym(library, "XResClientIdsDestroy");
    if (query_extension && query_version && query_client_ids && client_pid && destroy_client_ids) {
        __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
    }
}

static int ready(void) {
    pthread_once(&once, load);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}

int ka_x11_knows_client_processes(Display *display) {
    if (!ready()) return 0;
    int event_base = 0, error_base = 0, major = 0, minor = 0;
    if (!query_extension(display, &event_base, &error_base)) return 0;
    if (!query_version(display, &major, &minor)) return 0;
    return major > 1 || (major == 1 && minor >= 2);
}

int ka_x11_window_process(Display *display, unsigned long window) {
    if (!ready()) return -1;
    XResClientIdSpec spec = {.client = window, .mask = XRES_CLIENT_ID_PID_MASK};
    long count = 0;
    XResClientIdValue *values = NULL;
    if (query_client_ids(display, 1, &spec, &count, &values) != Success) return -1;
    pid_t pid = -1;
    for (long index = 0; index < count && pid < 0; index++) {
        pid = client_pid(&values[index]);
    }
    destroy_client_ids(count, values);
    return pid > 0 ? pid : -1;
}
