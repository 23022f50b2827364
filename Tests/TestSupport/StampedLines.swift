import Foundation
import Glibc
import KeyboardAdapterCore
import KeyboardBackendInterface
import Synchronization

/// The lines a child process writes to a pipe, each stamped with `MonotonicClock.now()` as soon
/// as `read()` returns it. A dedicated thread blocks in `poll()` and `read()` on the descriptor,
/// so the measuring side adds no dispatch hop (unlike `FileHandle.readabilityHandler`). Lines that
/// arrive in one read share its stamp. The thread reads a copy of the descriptor of its own and
/// closes it at end of file, when it ends: so the owner may close its descriptor at once, and no
/// descriptor number is closed under the thread (and reused by something the thread then reads).
public final class StampedLines: @unchecked Sendable {
    /// One line without its newline, and when it was read.
    public struct Line: Sendable {
        /// `MonotonicClock.now()` right after the `read()` that completed the line.
        public var time: Double
        /// The text.
        public var text: String
    }

    private let lines = Mutex<[Line]>([])
    private let arrived = NSCondition()
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading a copy of `descriptor` (which stays the caller's) on a thread of its own.
    public init(descriptor: Int32) {
        let descriptor = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        Thread.detachNewThread { [self] in
            defer { if descriptor >= 0 { close(descriptor) } }
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while true {
                _ = poll(&fds, 1, -1)
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                let now = MonotonicClock.now()
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else { break }
                pending += buffer[0..<count]
                var complete: [Line] = []
                while let newline = pending.firstIndex(of: 0x0A) {
                    complete.append(Line(time: now, text: String(decoding: pending[0..<newline], as: UTF8.self)))
                    pending.removeSubrange(0...newline)
                }
                guard !complete.isEmpty else { continue }
                arrived.lock()
                lines.withLock { $0 += complete }
                arrived.broadcast()
                arrived.unlock()
            }
            finished.signal()
        }
    }

    /// How many lines were read so far.
    public var count: Int { lines.withLock { $0.count } }

    /// The `index`-th line (from 0).
    public func line(_ index: Int) -> Line { lines.withLock { $0[index] } }

    /// Every line read so far.
    public var all: [Line] { lines.withLock { $0 } }

    /// The first line at `from` or later whose text satisfies `matches`, waiting for it up to
    /// `timeout` seconds; nil when none came.
    public func first(from: Int, timeout: Double, where matches: (String) -> Bool) -> Line? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var next = from
        arrived.lock()
        defer { arrived.unlock() }
        while true {
            let read = lines.withLock { Array($0[min(next, $0.count)...]) }
            if let found = read.first(where: { matches($0.text) }) { return found }
            next += read.count
            if Date() >= deadline { return nil }
            _ = arrived.wait(until: deadline)
        }
    }

    /// Waits up to `timeout` seconds for the reading thread to reach end of file; true if it did.
    public func waitForEnd(timeout: Double) -> Bool { finished.wait(timeout: .now() + timeout) == .success }
}
