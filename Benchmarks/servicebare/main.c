/* servicebare: N subscribers of the session service, for servicebench. Opens N connections to
   the session bus, subscribes each (caller false), and prints one line per Event received (the
   broadcast every subscriber reads; its Verdict signals, which say its `local` when a show
   starts, are heard and not printed): `CLIENT SECONDS EVENT`, SECONDS on CLOCK_MONOTONIC (the
   clock servicebench stamps its own lines with). All connections are polled together; `ready`
   once all are subscribed. `servicebare N event`: N listeners of Event, none subscribed. */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define MAX_CLIENTS 1000

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The update's "event" entry (its a{sv} read up to that key); NULL when it has none. */
static const char *event_name(sd_bus_message *message) {
    if (sd_bus_message_enter_container(message, 'a', "{sv}") <= 0) return NULL;
    while (sd_bus_message_enter_container(message, 'e', "sv") > 0) {
        const char *key = NULL;
        if (sd_bus_message_read(message, "s", &key) < 0) return NULL;
        if (strcmp(key, "event") == 0) {
            const char *event = NULL;
            return sd_bus_message_read(message, "v", "s", &event) < 0 ? NULL : event;
        }
        if (sd_bus_message_skip(message, "v") < 0 || sd_bus_message_exit_container(message) < 0) return NULL;
    }
    return NULL;
}

static int verdict(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)message;
    (void)userdata;
    (void)error;
    return 0;
}

static int received(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    double at = now();
    const char *event = event_name(message);
    if (event == NULL) return 0;
    printf("%ld %.6f %s\n", (long)(intptr_t)userdata, at, event);
    return 0;
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 1;
    if (count < 1 || count > MAX_CLIENTS) return 2;
    int broadcast = argc > 2 && strcmp(argv[2], "event") == 0;
    static sd_bus *buses[MAX_CLIENTS];
    struct pollfd fds[MAX_CLIENTS];
    for (int i = 0; i < count; i++) {
        if (sd_bus_open_user(&buses[i]) < 0) {
            fprintf(stderr, "servicebare: cannot connect to the session bus\n");
            return 1;
        }
        if (sd_bus_match_signal(buses[i], NULL, "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher",
                                "org.keyboardadapter.Watcher2", "Event", received, (void *)(intptr_t)i) < 0) {
            fprintf(stderr, "servicebare: cannot add the match\n");
            return 1;
        }
        if (broadcast) continue;
        if (sd_bus_match_signal(buses[i], NULL, "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher",
                                "org.keyboardadapter.Watcher2", "Verdict", verdict, NULL) < 0) {
            fprintf(stderr, "servicebare: cannot add the match\n");
            return 1;
        }
        sd_bus_error failure = SD_BUS_ERROR_NULL;
        if (sd_bus_call_method(buses[i], "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher",
                               "org.keyboardadapter.Watcher2", "Subscribe", &failure, NULL, "a{sv}", 1, "caller",
                               "b", 0) < 0) {
            fprintf(stderr, "servicebare: Subscribe: %s\n", failure.message ? failure.message : "failed");
            return 1;
        }
        sd_bus_error_free(&failure);
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        for (int i = 0; i < count; i++) {
            while (sd_bus_process(buses[i], NULL) > 0) {}
            fds[i].fd = sd_bus_get_fd(buses[i]);
            fds[i].events = (short)sd_bus_get_events(buses[i]);
            fds[i].revents = 0;
        }
        fflush(stdout);
        if (poll(fds, (nfds_t)count, -1) < 0) return 1;
    }
}
