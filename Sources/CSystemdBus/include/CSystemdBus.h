#ifndef KEYBOARD_ADAPTER_CSYSTEMDBUS_H
#define KEYBOARD_ADAPTER_CSYSTEMDBUS_H
/*
 * The few sd-bus conveniences Swift cannot express: a method call that can never start (activate)
 * its destination, a start whose authentication is paced, the error of a reply, and a zeroed error
 * (SD_BUS_ERROR_NULL is a compound literal, which Swift does not import). Every function returns >= 0 on success, -errno on failure.
 */
#include <stdint.h>
#include <systemd/sd-bus.h>

/* The sd-bus functions the package calls. The package defines none of them: each is reached
   through a function of its own name, `ka_` before the sd-bus name (ka_sd_bus_new for sd_bus_new),
   which calls the function looked up in the loaded libsystemd. An app that links libsystemd and
   calls sd-bus itself, before or after the package, calls libsystemd's own functions.
   Each entry: return type, name, parameters, arguments, what ka_<name> returns before the library
   is loaded (see ka_bus_library_load). */
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

#define KA_SD_BUS_DECLARATION(type, name, parameters, arguments, fallback) type ka_##name parameters;
KA_SD_BUS_FUNCTIONS(KA_SD_BUS_DECLARATION)
#undef KA_SD_BUS_DECLARATION

/* Loads libsystemd (once; any thread): 0 when its sd-bus functions can be used, else -ENOENT with
   the reason in *error (a static string). Nothing else here works before it succeeded: the
   ka_sd_bus_ functions return their fallback until then. */
int ka_bus_library_load(const char **error);

/* A method call to destination/path/interface.member with auto-start switched off: a keyboard
   that is not running answers NameHasNoOwner instead of being started by the call. */
int ka_bus_new_call(sd_bus *bus, sd_bus_message **out, const char *destination, const char *path,
                    const char *interface, const char *member);

/* Starts `bus` (new, not started) on the unix socket `path` ("@name" for an abstract one), its
   authentication paced: each step waits for the bus's answer, which xdg-dbus-proxy before 0.1.6
   needs (see paced.c). Waits up to `timeout_ms` for the answer. Unix descriptors are not
   negotiated. */
int ka_bus_start_paced(sd_bus *bus, const char *path, int timeout_ms);

/* Appends one string ('s') or one boolean ('b', as a C int) argument. */
int ka_bus_append_string(sd_bus_message *message, const char *value);
int ka_bus_append_bool(sd_bus_message *message, int value);

/* Appends one variant holding a boolean ('v' of 'b'), for Properties.Set. */
int ka_bus_append_variant_bool(sd_bus_message *message, int value);

/* A reply's error name and message when it is an error reply (both NULL otherwise); they point into
   the message. */
void ka_bus_reply_error(sd_bus_message *reply, const char **name, const char **message);

/* Replies to a method call with an empty method return (for calls made to the package's own
   objects). */
int ka_bus_reply_empty(sd_bus *bus, sd_bus_message *call);

/* Replies to a method call with the error `name` and its message. */
int ka_bus_reply_with_error(sd_bus *bus, sd_bus_message *call, const char *name, const char *text);

/* A zeroed error, and its release. */
sd_bus_error ka_bus_error_null(void);
void ka_bus_error_free(sd_bus_error *error);

/* A descriptor that pins process `pid` (pidfd_open, Linux 5.3): its pid cannot name another
   process while it is open. -errno when the process is gone (-ESRCH) or pidfds are missing. */
int ka_process_pin(int pid);

/* 1 when the pinned process has ended, 0 while it runs, -errno when that cannot be told. */
int ka_process_has_ended(int pidfd);

/* Reads a GetConnectionCredentials reply (a{sv}) from its start: the user and process ids (-1 when
   not given) and a close-on-exec copy of its ProcessFD (-1 when not given; the caller closes it).
   -errno on a malformed reply or more than 1 024 entries. */
int ka_bus_read_credentials(sd_bus_message *reply, int64_t *uid, int64_t *pid, int *pidfd);

/* The pid, in this process's pid namespace, of the process pidfd `pidfd` holds (its fdinfo):
   -ESRCH once it has ended, -EXDEV when it is outside this namespace, -errno otherwise. */
int ka_process_pid_of(int pidfd);

#endif
