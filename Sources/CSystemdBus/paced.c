/* A bus connection whose authentication waits for each answer, for sandboxes whose bus is
   xdg-dbus-proxy before 0.1.6 (Debian 12's 0.1.4; Debian 13 has 0.1.6). sd-bus sends its whole
   handshake in one write, "AUTH EXTERNAL", "DATA" and "BEGIN" together; those
   proxies take BEGIN as the end of the handshake before the bus has answered, read the bus's
   answer as a message header, and close the connection ("Invalid message header read"). sd-bus has
   no way to be handed a connection already authenticated, so: the handshake up to the bus's
   answer is made here, that answer left unread in the socket; BEGIN follows once it has come; then
   sd-bus starts on a socket pair (its own handshake goes into the pair and is dropped), and the
   real socket takes the pair's descriptor number, so that sd-bus reads the bus's answer, finds the
   handshake it expects, and goes on as on any connection. Like every connection of the package,
   it takes no Unix descriptors: NEGOTIATE_UNIX_FD is never sent, and sd-bus is told so before it
   starts (it then expects no AGREE_UNIX_FD either). */
#define _GNU_SOURCE
#include "CSystemdBus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The bus's answer: "DATA" and "OK <guid>", each ending in CRLF. Waits up to `timeout_ms` for
   both, reading nothing (MSG_PEEK). */
static int await_answer(int socket_fd, int timeout_ms) {
    char answer[512];
    for (;;) {
        struct pollfd ready = {.fd = socket_fd, .events = POLLIN};
        int polled = poll(&ready, 1, timeout_ms);
        if (polled < 0 && errno == EINTR) continue;
        if (polled <= 0) return polled < 0 ? -errno : -ETIMEDOUT;
        ssize_t count = recv(socket_fd, answer, sizeof answer - 1, MSG_PEEK);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return count < 0 ? -errno : -ECONNRESET;
        answer[count] = '\0';
        /* A bus that rejects EXTERNAL says REJECTED: sd-bus would try no other mechanism either. */
        if (strncmp(answer, "DATA\r\n", (size_t)count < 6 ? (size_t)count : 6) != 0) return -EPERM;
        int lines = 0;
        for (const char *end = strstr(answer, "\r\n"); end != NULL; end = strstr(end + 2, "\r\n")) lines++;
        if (lines >= 2) return 0;
        if ((size_t)count == sizeof answer - 1) return -EPROTO;
    }
}

int ka_bus_start_paced(sd_bus *bus, const char *path, int timeout_ms) {
    static const char handshake[] = "\0AUTH EXTERNAL\r\nDATA\r\n";
    /* sd-bus's own handshake must not ask for descriptors: it would wait for an agreement the
       bus is never asked for. */
    int refused = ka_sd_bus_negotiate_fds(bus, 0);
    if (refused < 0) return refused;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof address.sun_path) return -EINVAL;
    memcpy(address.sun_path, path, length);
    /* "@name" is an abstract socket. */
    if (path[0] == '@') address.sun_path[0] = '\0';
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length + (path[0] != '@'));
    int socket_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (socket_fd < 0) return -errno;
    int status = 0;
    if (connect(socket_fd, (struct sockaddr *)&address, size) < 0 ||
        send(socket_fd, handshake, sizeof handshake - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof handshake - 1)) {
        status = -errno;
        goto failed;
    }
    status = await_answer(socket_fd, timeout_ms);
    if (status < 0) goto failed;
    if (send(socket_fd, "BEGIN\r\n", 7, MSG_NOSIGNAL) != 7) {
        status = -errno;
        goto failed;
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
        status = -errno;
        goto failed;
    }
    /* Once set, the bus owns pair[0] (closed with it). */
    status = ka_sd_bus_set_fd(bus, pair[0], pair[0]);
    if (status < 0) close(pair[0]);
    if (status >= 0) status = ka_sd_bus_set_bus_client(bus, 1);
    if (status >= 0) status = ka_sd_bus_start(bus);
    if (status >= 0) {
        /* sd-bus made its descriptor non-blocking: so must the one that replaces it be. */
        int flags = fcntl(socket_fd, F_GETFL);
        if (flags < 0 || fcntl(socket_fd, F_SETFL, flags | O_NONBLOCK) < 0 || dup3(socket_fd, pair[0], O_CLOEXEC) < 0)
            status = -errno;
    }
    close(pair[1]);
failed:
    close(socket_fd);
    return status < 0 ? status : 0;
}
