/* gnomebare: the floor for gnomebench. A bare sd-bus client of the session bus that hears what
   the gnome backend hears from the package's GNOME Shell extension, reads the rectangle out of
   each signal, and prints at once one line per signal: `visible V Y T` for VisibilityChanged
   and `moved Y T` for Moved, Y the rectangle's top rounded as kbwatch rounds it, T the
   extension's CLOCK_MONOTONIC microseconds when the shell moved the keyboard. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

static int heard(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    const char *member = sd_bus_message_get_member(message);
    double x, y, width, height;
    uint64_t time;
    if (member && strcmp(member, "Moved") == 0) {
        if (sd_bus_message_read(message, "(dddd)t", &x, &y, &width, &height, &time) < 0) return 0;
        printf("moved %ld %llu\n", lround(y), (unsigned long long)time);
    } else if (member && strcmp(member, "VisibilityChanged") == 0) {
        int visible;
        if (sd_bus_message_read(message, "b(dddd)", &visible, &x, &y, &width, &height) < 0) return 0;
        /* target, monitor */
        if (sd_bus_message_skip(message, "(dddd)(uiiiid)") < 0) return 0;
        if (sd_bus_message_read(message, "t", &time) < 0) return 0;
        printf("visible %d %ld %llu\n", visible, lround(y), (unsigned long long)time);
    } else {
        return 0;
    }
    fflush(stdout);
    return 0;
}

int main(void) {
    sd_bus *bus = NULL;
    if (sd_bus_open_user(&bus) < 0) {
        fprintf(stderr, "gnomebare: cannot connect to the session bus\n");
        return 1;
    }
    if (sd_bus_match_signal(bus, NULL, "org.gnome.Shell", "/org/keyboardadapter/GnomeShell",
                            "org.keyboardadapter.GnomeShell1", NULL, heard, NULL) < 0) {
        fprintf(stderr, "gnomebare: cannot subscribe\n");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        int status = sd_bus_process(bus, NULL);
        if (status < 0) return 1;
        if (status > 0) continue;
        if (sd_bus_wait(bus, (uint64_t)-1) < 0) return 1;
    }
}
