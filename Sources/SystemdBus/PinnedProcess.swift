import CSystemdBus
import Glibc

/// A process held by a pidfd: while this lives, its pid names no other process, and whether it
/// has ended can be asked. What is read of the process through `/proc/PID` between its pinning
/// and a later ``hasEnded`` that says false is known to be this process's. Closed when released.
package final class PinnedProcess {
    /// The process id pinned.
    package let pid: Int32
    private let descriptor: Int32

    /// Pins the process that has `pid` now; throws the errno when there is none (`ESRCH`) or it
    /// cannot be pinned (no descriptor left, a kernel without pidfds).
    package init(_ pid: Int32) throws(BusFailure) {
        let pinned = ka_process_pin(pid)
        guard pinned >= 0 else { throw BusFailure(code: -pinned) }
        self.pid = pid
        descriptor = pinned
    }

    /// Takes `pidfd`, a pidfd from elsewhere (the bus's `ProcessFD`), said to hold process `pid`:
    /// closes it and throws `ESRCH` when its process has ended, `EPERM` when it holds another
    /// process, or another errno when that cannot be told.
    package init(holding pidfd: Int32, pid: Int32) throws(BusFailure) {
        let held = ka_process_pid_of(pidfd)
        guard held == pid else {
            close(pidfd)
            throw BusFailure(code: held < 0 ? -held : EPERM)
        }
        self.pid = pid
        descriptor = pidfd
    }

    deinit { close(descriptor) }

    /// Whether the process has ended; true also when that cannot be told (failing closed).
    package var hasEnded: Bool { ka_process_has_ended(descriptor) != 0 }
}
