/* A process pinned by a pidfd, so that what is read of it through /proc is known to be that
   process's and not a later one's that took its pid. */
#define _GNU_SOURCE
#include "CSystemdBus.h"

#include <errno.h>
#include <poll.h>
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
