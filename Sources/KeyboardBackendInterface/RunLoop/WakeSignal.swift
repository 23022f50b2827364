import Glibc

/// A descriptor that another thread makes readable to end a `poll()`: the read end of a pipe,
/// non-blocking on both ends, so that a burst of signals never blocks a sender and one drain
/// empties it. Both ends stay open as long as the value, so a signal never meets a closed reader
/// (which would raise SIGPIPE).
package final class WakeSignal: Sendable {
    /// The end to poll for `POLLIN`.
    package let descriptor: Int32
    private let writeEnd: Int32

    /// Opens the pipe; nil when the process has no descriptors left.
    package init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            // Not inherited by programs the app starts.
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Makes the descriptor readable. A full pipe already holds a wake-up, so nothing is lost.
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so that the descriptor is no longer readable.
    package func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Why the pipe could not be opened, for people.
    package static var openFailure: String { "cannot open a pipe: \(String(cString: strerror(errno)))" }
}
