#ifndef KEYBOARD_ADAPTER_CSYSTEMDBUS_H
#define KEYBOARD_ADAPTER_CSYSTEMDBUS_H
/*
 * The few sd-bus conveniences Swift cannot express: a method call that can never start (activate)
 * its destination, a start whose authentication is paced, the error of a reply, and a zeroed error
 * (SD_BUS_ERROR_NULL is a compound literal, which Swift does not import). Every function returns >= 0 on success, -errno on failure.
 */
#include <stdint.h>
#include <systemd/sd-bus.h>

/* Loads libsystemd (once; any thread): 0 when its sd-bus functions can be used, else -ENOENT with
   the reason in *error (a static string). Nothing else here works before it succeeded. */
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
