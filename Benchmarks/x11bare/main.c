/* x11bare: the floor of kbwatch's CPU per event on X11, for kbwatchbench. A plain Xlib client
   that does what kbwatch must do for a keyboard move and no more: it selects the events kbwatch
   selects (the root's structure, substructure and properties; the keyboard window's structure
   and properties), reads the socket once per wake-up and only when poll() says it is readable,
   and for each move of the window writes one JSON line the size of kbwatch's willChangeFrame
   line with one write(2); then, as kbwatch does once the move has settled, it waits for a timer
   (timerfd, the settle interval) and writes a second line the size of kbwatch's didChangeFrame.
   Lines go to stdout.

   Usage: x11bare WINDOW [SETTLE_MS [LINES [chained|overlapped]]]
   (WINDOW in hex or decimal; SETTLE_MS default 50). With LINES, each of a move's two wake-ups also
   reads LINES/2 cache lines of its own, 8 to a page in a random order, as a watcher with a larger
   footprint would: one after the other, each address read from the line before (chained, the
   default: no miss overlaps another), or all addresses known at once (overlapped). It measures what
   a line a wake-up touches costs on the machine (docs/performance.md, "Where the time goes"). */
#include <X11/Xlib.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static char line[2048];

/* The extra lines, in a random order; each holds the address of the next (the last, the first's). */
static char **extraLines;
static long extraCount;
static int overlapped;

static void makeExtraLines(long count) {
    extraCount = count;
    if (count <= 0) return;
    size_t pages = (size_t)(count + 7) / 8;
    char *area = aligned_alloc(4096, pages * 4096);
    extraLines = malloc(sizeof *extraLines * (size_t)count);
    if (area == NULL || extraLines == NULL) exit(1);
    memset(area, 0, pages * 4096);
    for (long i = 0; i < count; i++) extraLines[i] = area + (i / 8) * 4096 + (i % 8) * 512;
    srand(1);
    for (long i = count - 1; i > 0; i--) {
        long j = rand() % (i + 1);
        char *swap = extraLines[i];
        extraLines[i] = extraLines[j];
        extraLines[j] = swap;
    }
    for (long i = 0; i < count; i++) *(char **)extraLines[i] = extraLines[(i + 1) % count];
}

/* Reads `count` of the extra lines, from the first in the random order. */
static void touchExtraLines(long count) {
    if (count > extraCount) count = extraCount;
    uintptr_t seen = 0;
    if (overlapped) {
        for (long i = 0; i < count; i++) seen += *(uintptr_t *)extraLines[i];
    } else if (count > 0) {
        char *at = extraLines[0];
        for (long i = 0; i < count; i++) at = *(char **)at;
        seen = (uintptr_t)at;
    }
    /* Keeps the reads: the compiler cannot know that this never writes. */
    if (seen == 1) write(2, "", 0);
}

/* The wall-clock time as kbwatch writes it: 2026-12-01T16:40:07.646Z. */
static int timestamp(char *out, size_t size) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm utc;
    gmtime_r(&now.tv_sec, &utc);
    size_t length = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &utc);
    return (int)length + snprintf(out + length, size - length, ".%03ldZ", now.tv_nsec / 1000000);
}

/* One line shaped like kbwatch's JSON Lines event for the window at (x, y, width, height). */
static void emit(const char *event, unsigned long window, int bx, int by, int x, int y, int width, int height,
                 double duration, const char *timing) {
    char time[64];
    timestamp(time, sizeof time);
    int length = snprintf(
        line, sizeof line,
        "{\"schema\":1,\"event\":\"%s\",\"time\":\"%s\",\"backend\":\"x11\",\"keyboard\":{\"id\":\"x11:0x%lx\","
        "\"name\":\"xvkbd\",\"kind\":\"keyboard\",\"pid\":null},\"output\":{\"name\":\"screen\",\"x\":0,\"y\":0,"
        "\"width\":1280,\"height\":800},\"beginFrame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d},"
        "\"endFrame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d},\"visible\":true,\"docked\":false,"
        "\"local\":null,\"animationDuration\":%g,\"animationCurve\":\"unknown\",\"layout\":{\"name\":"
        "\"English (US)\",\"code\":\"us\"},\"geometry\":\"reported\",\"endFramePredicted\":false,"
        "\"timing\":\"%s\"}\n",
        event, time, window, bx, by, width, height, x, y, width, height, duration, timing);
    for (int offset = 0; offset < length;) {
        ssize_t written = write(1, line + offset, (size_t)(length - offset));
        if (written <= 0) exit(1);
        offset += (int)written;
    }
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    unsigned long window = strtoul(argv[1], NULL, 0);
    long settle = argc > 2 ? atol(argv[2]) : 50;
    long lines = argc > 3 ? atol(argv[3]) : 0;
    if (argc > 4 && strcmp(argv[4], "chained") != 0 && strcmp(argv[4], "overlapped") != 0) return 2;
    overlapped = argc > 4 && strcmp(argv[4], "overlapped") == 0;
    makeExtraLines(lines);
    Display *display = XOpenDisplay(NULL);
    if (display == NULL) return 1;
    Window root = DefaultRootWindow(display);
    XSelectInput(display, root, SubstructureNotifyMask | StructureNotifyMask | PropertyChangeMask);
    XSelectInput(display, window, StructureNotifyMask | PropertyChangeMask);
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(display, window, &attributes)) return 1;
    int x = attributes.x, y = attributes.y, width = attributes.width, height = attributes.height;
    int beginX = x, beginY = y, moving = 0;
    struct timespec began = {0, 0};
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    printf("ready\n");
    fflush(stdout);
    struct pollfd fds[2] = {{ConnectionNumber(display), POLLIN, 0}, {timer, POLLIN, 0}};
    int readable = 1; /* events may have come with the round trip above */
    for (;;) {
        int changed = 0;
        /* The socket is read once, and only when poll() said so; then Xlib's queue alone. */
        int queued = readable ? XEventsQueued(display, QueuedAfterReading) : XEventsQueued(display, QueuedAlready);
        while (queued-- > 0) {
            XEvent event;
            XNextEvent(display, &event);
            if (event.type != ConfigureNotify || event.xconfigure.window != window || event.xconfigure.send_event)
                continue;
            XConfigureEvent *e = &event.xconfigure;
            if (e->x == x && e->y == y && e->width == width && e->height == height) continue;
            x = e->x, y = e->y, width = e->width, height = e->height;
            changed = 1;
        }
        if (changed) {
            touchExtraLines(lines / 2);
            if (!moving) {
                moving = 1;
                clock_gettime(CLOCK_MONOTONIC, &began);
                emit("willChangeFrame", window, beginX, beginY, x, y, width, height, 0, "unknown");
            }
            struct itimerspec at = {{0, 0}, {settle / 1000, (settle % 1000) * 1000000}};
            timerfd_settime(timer, 0, &at, NULL);
        }
        if (poll(fds, 2, -1) < 0) return 1;
        if (fds[0].revents & (POLLHUP | POLLERR)) return 0;
        readable = (fds[0].revents & POLLIN) != 0;
        if (fds[1].revents & POLLIN) {
            unsigned long long expirations;
            if (read(timer, &expirations, sizeof expirations) == sizeof expirations && moving) {
                touchExtraLines(lines / 2);
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                double duration = (double)(now.tv_sec - began.tv_sec) * 1000 + (now.tv_nsec - began.tv_nsec) / 1e6;
                emit("didChangeFrame", window, beginX, beginY, x, y, width, height, duration, "measured");
                beginX = x, beginY = y, moving = 0;
            }
        }
    }
}
