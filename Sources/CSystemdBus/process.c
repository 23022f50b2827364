/* A process pinned by a pidfd, so that what is read of it through /proc is known to be that
   process's and not a later one's that took its pid. */
#define _GNU_SOURCE
#include "CSystemdBus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int ka_process_pin(int pid) {
    if (pid <= 0) return -EINVAL;
    long descriptor = syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (descriptor < 0) return -errno;
    /* pidfd_open's descriptors are close-on-exec already. */
    return (int)descriptor;
}

int ka_process_has_ended(int pidfd) {
    /* A pidfd is readable once its process has ended. */
    struct pollfd ready = {.fd = pidfd, .events = POLLIN};
    for (;;) {
        int polled = poll(&ready, 1, 0);
        if (polled < 0 && errno == EINTR) continue;
        if (polled < 0) return -errno;
        if (ready.revents & POLLNVAL) return -EBADF;
        return (ready.revents & (POLLIN | POLLHUP)) ? 1 : 0;
    }
}

int ka_bus_read_credentials(sd_bus_message *reply, int64_t *uid, int64_t *pid, int *pidfd) {
    *uid = -1;
    *pid = -1;
    *pidfd = -1;
    int status = ka_sd_bus_message_enter_container(reply, 'a', "{sv}");
    if (status <= 0) return status < 0 ? status : -EBADMSG;
    for (unsigned entries = 0; entries < 1024; entries++) {
        status = ka_sd_bus_message_enter_container(reply, 'e', "sv");
        if (status < 0) goto failed;
        if (status == 0) return ka_sd_bus_message_exit_container(reply);
        const char *key = NULL;
        char type = 0;
        const char *contents = NULL;
        status = ka_sd_bus_message_read_basic(reply, 's', &key);
        if (status == 0 || key == NULL) status = -EBADMSG;
        if (status >= 0) status = ka_sd_bus_message_peek_type(reply, &type, &contents);
        if (status < 0) goto failed;
        if (contents && strcmp(key, "ProcessFD") == 0 && strcmp(contents, "h") == 0 && *pidfd < 0) {
            int received = -1;
            status = ka_sd_bus_message_enter_container(reply, 'v', "h");
            if (status >= 0) status = ka_sd_bus_message_read_basic(reply, 'h', &received);
            if (status >= 0) status = ka_sd_bus_message_exit_container(reply);
            if (status < 0) goto failed;
            /* The message owns its descriptor: a copy of ours outlives it. */
            *pidfd = fcntl(received, F_DUPFD_CLOEXEC, 3);
            if (*pidfd < 0) {
                status = -errno;
                goto failed;
            }
        } else if (contents && (strcmp(key, "UnixUserID") == 0 || strcmp(key, "ProcessID") == 0) &&
                   strcmp(contents, "u") == 0) {
            uint32_t value = 0;
            status = ka_sd_bus_message_enter_container(reply, 'v', "u");
            if (status >= 0) status = ka_sd_bus_message_read_basic(reply, 'u', &value);
            if (status >= 0) status = ka_sd_bus_message_exit_container(reply);
            if (status < 0) goto failed;
            *(key[0] == 'U' ? uid : pid) = value;
        } else {
            status = ka_sd_bus_message_skip(reply, "v");
            if (status < 0) goto failed;
        }
        status = ka_sd_bus_message_exit_container(reply);
        if (status < 0) goto failed;
    }
    status = -E2BIG;
failed:
    if (*pidfd >= 0) close(*pidfd);
    *pidfd = -1;
    return status;
}

int ka_process_pid_of(int pidfd) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return -errno;
    char text[4096];
    ssize_t got = read(descriptor, text, sizeof text - 1);
    int saved = errno;
    close(descriptor);
    if (got < 0) return -saved;
    text[got] = 0;
    const char *line = strstr(text, "\nPid:");
    if (line == NULL) return -ENOTSUP;
    long pid = strtol(line + strlen("\nPid:"), NULL, 10);
    /* -1: the process has ended; 0: it runs in a pid namespace this process cannot see. */
    if (pid <= 0) return pid < 0 ? -ESRCH : -EXDEV;
    return (int)pid;
}
