/* libsystemd, loaded when a session bus is first used rather than at program start: a process
   that never talks to a keyboard service (no session bus, a kiosk without one) does not map
   libsystemd and the libraries it pulls in (libgcrypt, liblzma, libzstd, liblz4, libcap: about
   0.8 MiB resident), and runs where libsystemd is missing. Each sd-bus function the package uses
   is defined here with its own prototype and forwards to the loaded library. */
#include "CSystemdBus.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

/* return type, name, parameters, arguments, what it returns before the library is loaded */
#define KA_SD_BUS_FUNCTIONS(X)                                                                             \
    X(int, sd_bus_new, (sd_bus **ret), (ret), -ENOSYS)                                                     \
    X(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address), -ENOSYS)                \
    X(int, sd_bus_set_fd, (sd_bus *bus, int input_fd, int output_fd), (bus, input_fd, output_fd), -ENOSYS)   \
    X(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b), -ENOSYS)                                 \
    X(int, sd_bus_negotiate_fds, (sd_bus *bus, int b), (bus, b), -ENOSYS)                                  \
    X(int, sd_bus_start, (sd_bus *bus), (bus), -ENOSYS)                                                    \
    X(sd_bus *, sd_bus_close_unref, (sd_bus *bus), (bus), NULL)                                            \
    X(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus), NULL)                                      \
    X(int, sd_bus_get_fd, (sd_bus *bus), (bus), -ENOSYS)                                                   \
    X(int, sd_bus_get_events, (sd_bus *bus), (bus), -ENOSYS)                                               \
    X(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec), -ENOSYS)        \
    X(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r), -ENOSYS)                           \
    X(int, sd_bus_add_match,                                                                               \
      (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata), \
      (bus, slot, match, callback, userdata), -ENOSYS)                                                     \
    X(int, sd_bus_call,                                                                                    \
      (sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply),    \
      (bus, m, usec, ret_error, reply), -ENOSYS)                                                           \
    X(int, sd_bus_call_async,                                                                              \
      (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback,              \
       void *userdata, uint64_t usec),                                                                     \
      (bus, slot, m, callback, userdata, usec), -ENOSYS)                                                   \
    X(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot), (slot), NULL)                                 \
    X(int, sd_bus_message_new_method_call,                                                                 \
      (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface,  \
       const char *member),                                                                                \
      (bus, m, destination, path, interface, member), -ENOSYS)                                             \
    X(int, sd_bus_message_set_auto_start, (sd_bus_message *m, int b), (m, b), -ENOSYS)                     \
    X(sd_bus_message *, sd_bus_message_ref, (sd_bus_message *m), (m), NULL)                                \
    X(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m), NULL)                              \
    X(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p), -ENOSYS) \
    X(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents),            \
      (m, type, contents), -ENOSYS)                                                                        \
    X(int, sd_bus_message_close_container, (sd_bus_message *m), (m), -ENOSYS)                              \
    X(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p), -ENOSYS)      \
    X(int, sd_bus_message_skip, (sd_bus_message *m, const char *types), (m, types), -ENOSYS)               \
    X(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents),               \
      (m, type, contents), -ENOSYS)                                                                        \
    X(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents),           \
      (m, type, contents), -ENOSYS)                                                                        \
    X(int, sd_bus_message_exit_container, (sd_bus_message *m), (m), -ENOSYS)                               \
    X(int, sd_bus_message_has_signature, (sd_bus_message *m, const char *signature), (m, signature), 0)    \
    X(int, sd_bus_message_is_method_error, (sd_bus_message *m, const char *name), (m, name), 0)            \
    X(const sd_bus_error *, sd_bus_message_get_error, (sd_bus_message *m), (m), NULL)                      \
    X(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique), -ENOSYS)             \
    X(int, sd_bus_add_object,                                                                              \
      (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, void *userdata), \
      (bus, slot, path, callback, userdata), -ENOSYS)                                                      \
    X(const char *, sd_bus_message_get_sender, (sd_bus_message *m), (m), NULL)                             \
    X(const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m), NULL)                          \
    X(const char *, sd_bus_message_get_member, (sd_bus_message *m), (m), NULL)                             \
    X(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m), -ENOSYS) \
    X(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie), -ENOSYS)     \
    X(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags), -ENOSYS) \
    X(int, sd_bus_message_new_signal,                                                                      \
      (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member),      \
      (bus, m, path, interface, member), -ENOSYS)                                                          \
    X(int, sd_bus_message_set_destination, (sd_bus_message *m, const char *destination), (m, destination), -ENOSYS) \
    X(int, sd_bus_message_new_method_error, (sd_bus_message *call, sd_bus_message **m, const sd_bus_error *e), \
      (call, m, e), -ENOSYS)

#define KA_POINTER(type, name, parameters, arguments, fallback) static type(*loaded_##name) parameters;
KA_SD_BUS_FUNCTIONS(KA_POINTER)
static void (*loaded_sd_bus_error_free)(sd_bus_error *e);

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
    type name parameters {                                                                                 \
        if (loaded_##name == NULL) return fallback;                                                        \
        return loaded_##name arguments;                                                                    \
    }
KA_SD_BUS_FUNCTIONS(KA_FORWARD)

void sd_bus_error_free(sd_bus_error *e) {
    if (loaded_sd_bus_error_free != NULL) loaded_sd_bus_error_free(e);
}
