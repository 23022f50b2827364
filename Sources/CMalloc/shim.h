// glibc's malloc tuning (malloc.h, which the Glibc module leaves out) and madvise, for kbwatch's
// memory: one arena for all threads, and the pages start-up used and freed handed back.
// Header-only.
#ifndef KA_CMALLOC_H
#define KA_CMALLOC_H

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

// Tells the kernel that the code pages mapped so far, the program's and its libraries', are not
// needed: they stay in the page cache, and whatever runs from now on maps its pages again at its
// first use (a minor fault, no I/O). Only mappings that are executable, read-only, private and
// backed by a file are touched: code is never written, so nothing can be lost (data, the heap
// and the relocated read-only tables are left alone). /proc/self/maps is read whole first (at
// most 64 KiB), so that no mapping changes under the walk. Returns 0, or -1 when the map could
// not be read.
static inline int ka_release_code_pages(void) {
    static char map[65536];
    int file = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (file < 0) return -1;
    size_t length = 0;
    for (;;) {
        ssize_t got = read(file, map + length, sizeof map - 1 - length);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        length += (size_t)got;
        if (length == sizeof map - 1) break;
    }
    close(file);
    map[length] = 0;
    // A line: "start-end perms offset dev inode   path".
    for (char *line = map; line < map + length && *line;) {
        char *next = strchr(line, '\n');
        if (next) *next = 0;
        unsigned long start = 0, end = 0;
        char perms[5] = {0};
        int path = 0;
        if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &path) >= 3 && path > 0 &&
            line[path] == '/' && strcmp(perms, "r-xp") == 0 && end > start)
            (void)madvise((void *)start, end - start, MADV_DONTNEED);
        if (!next) break;
        line = next + 1;
    }
    return 0;
}

// Makes every thread allocate from the main arena (M_ARENA_MAX 1). Call before starting threads.
static inline void ka_malloc_single_arena(void) { (void)mallopt(M_ARENA_MAX, 1); }

// Returns the free memory of the heap to the system (malloc_trim(0)).
static inline void ka_malloc_trim(void) { (void)malloc_trim(0); }

#endif
