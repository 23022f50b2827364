// The time slice a thread asks the kernel's fair scheduler for (sched_setattr's sched_runtime,
// honoured by the EEVDF scheduler of Linux 6.12 and newer): a thread that asks for a short slice
// gets a CPU sooner when it wakes on a busy machine, and gives it up sooner when it runs long.
// Header-only: nothing beyond libc's syscall().
#ifndef KA_THREAD_SLICE_H
#define KA_THREAD_SLICE_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

// The first 48 bytes of the kernel's struct sched_attr (its size version 0), declared here under
// a name of ours so that no header's own declaration (glibc 2.41 has one) can clash with it.
struct ka_sched_attr {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
};

// The fair policies, where a slice means something: SCHED_OTHER and SCHED_BATCH.
static inline int ka_policy_is_fair(uint32_t policy) { return policy == 0 || policy == 3; }

// Sets the slice of thread `tid` (0: the calling thread) to `nanoseconds` (0: the kernel's
// default), keeping its policy and nice value, which sched_setattr would otherwise overwrite.
// Returns 0, ENOTSUP for a thread that is not under a fair policy (left alone), or an errno value.
static inline int ka_thread_set_slice(int tid, uint64_t nanoseconds) {
    struct ka_sched_attr attr = {0};
    if (syscall(SYS_sched_getattr, tid, &attr, (unsigned int)sizeof attr, 0U) != 0) return errno;
    if (!ka_policy_is_fair(attr.policy)) return ENOTSUP;
    attr.size = sizeof attr;
    attr.flags = 0;
    attr.runtime = nanoseconds;
    attr.deadline = 0;
    attr.period = 0;
    if (syscall(SYS_sched_setattr, tid, &attr, 0U) != 0) return errno;
    return 0;
}

// The slice thread `tid` (0: the calling thread) has, in nanoseconds, as the kernel reports it
// (0 where the scheduler has no per-thread slice); -1 when the kernel cannot say.
static inline int64_t ka_thread_slice(int tid) {
    struct ka_sched_attr attr = {0};
    if (syscall(SYS_sched_getattr, tid, &attr, (unsigned int)sizeof attr, 0U) != 0) return -1;
    return (int64_t)attr.runtime;
}

// What the run loop's thread asks for when a display connection joins it: 0.1 ms, the shortest
// slice the kernel grants. The thread wakes for an event, spends well under a millisecond on it
// and sleeps again, so a short slice costs it nothing and lets it run as soon as the event comes,
// instead of waiting behind whatever else the machine is running.
static inline int ka_loop_thread_request_short_slice(void) { return ka_thread_set_slice(0, 100000); }

static inline void *ka_slice_trial(void *kept) {
    *(int *)kept = ka_thread_set_slice(0, 300000) == 0 && ka_thread_slice(0) == 300000;
    return 0;
}

// Whether this kernel keeps the slice a thread asks for (the EEVDF scheduler of Linux 6.12 and
// newer), tried on a short-lived thread of its own so that the caller's slice stays as it is.
static inline int ka_kernel_keeps_slices(void) {
    pthread_t thread;
    int kept = 0;
    if (pthread_create(&thread, 0, ka_slice_trial, &kept) != 0) return 0;
    pthread_join(thread, 0);
    return kept;
}

// What --doctor says of the run loop thread's request.
static inline const char *ka_loop_slice_description(void) {
    return ka_kernel_keeps_slices()
        ? "asks for a 0.1 ms time slice, which this kernel keeps: it runs as soon as an event comes"
        : "asks for a 0.1 ms time slice, which this kernel ignores (Linux 6.12 and newer keep it): "
          "on a busy machine an event may wait for a CPU";
}

#endif
