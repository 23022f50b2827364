/* kwinbare: the floor for kwinbench. A bare sd-bus client of the session bus that does what the
   kwin backend does for each of KWin's visibleChanged signals (they carry no value): read
   `visible` with a blocking Get, and print `visible 0` or `visible 1` at once. */
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>

static int changed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    sd_bus *bus = userdata;
    int visible = -1;
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    if (sd_bus_get_property_trivial(bus, "org.kde.KWin", "/VirtualKeyboard", "org.kde.kwin.VirtualKeyboard",
                                    "visible", &failure, 'b', &visible) < 0) {
        fprintf(stderr, "kwinbare: %s\n", failure.message ? failure.message : "Get failed");
    } else {
        printf("visible %d\n", visible);
        fflush(stdout);
    }
    sd_bus_error_free(&failure);
    return 0;
}

int main(void) {
    sd_bus *bus = NULL;
    if (sd_bus_open_user(&bus) < 0) {
        fprintf(stderr, "kwinbare: cannot connect to the session bus\n");
        return 1;
    }
    if (sd_bus_match_signal(bus, NULL, "org.kde.KWin", "/VirtualKeyboard", "org.kde.kwin.VirtualKeyboard",
                            "visibleChanged", changed, bus) < 0) {
        fprintf(stderr, "kwinbare: cannot subscribe\n");
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
