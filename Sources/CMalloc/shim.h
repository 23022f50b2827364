// glibc's malloc tuning (malloc.h, which the Glibc module leaves out), for kbwatch's memory:
// one arena for all threads, and the pages start-up freed handed back. Header-only.
#ifndef KA_CMALLOC_H
#define KA_CMALLOC_H

#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

// The start and end of the executable's code, from the linker.
extern char __executable_start[];
extern char __etext[];

// Tells the kernel that the pages of the program's own code mapped so far are not needed: they
// stay in the page cache, and whatever runs from now on maps its pages again at its first use
// (a minor fault, no I/O). Only the code is touched, never data: code is never written, so
// nothing can be lost. Returns 0 or an errno value.
static inline int ka_release_code_pages(void) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)__executable_start + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t end = (uintptr_t)__etext & ~((uintptr_t)page - 1);
    if (end <= start) return 0;
    return madvise((void *)start, end - start, MADV_DONTNEED) == 0 ? 0 : -1;
}

// Makes every thread allocate from the main arena (M_ARENA_MAX 1). Call before starting threads.
static inline void ka_malloc_single_arena(void) { (void)mallopt(M_ARENA_MAX, 1); }

// Returns the free memory of the heap to the system (malloc_trim(0)).
static inline void ka_malloc_trim(void) { (void)malloc_trim(0); }

#endif
