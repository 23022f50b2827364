import Foundation
import Glibc
import Synchronization

/// What a child process writes into a pipe, read to its end on a thread of its own with blocking
/// reads. Not a `FileHandle.readabilityHandler`: that is a dispatch source on the descriptor, and
/// a handle closed before the source's cancellation has run leaves libdispatch watching a
/// descriptor number that the process soon gives to something else (the test process opens and
/// closes hundreds of sockets and event descriptors a second while the lifecycle races run).
public final class PipeDrain: Sendable {
    private let bytes = Mutex(Data())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading a copy of `handle`'s descriptor; the caller may close `handle` at once.
    /// The end comes when every writer has closed its end (the caller must close its own write
    /// end once the child has started).
    public init(_ handle: FileHandle) {
        let descriptor = fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        // The thread holds the drain until the end.
        Thread.detachNewThread { [self] in
            defer {
                if descriptor >= 0 { close(descriptor) }
                finished.signal()
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while descriptor >= 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                bytes.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
        }
    }

    /// What was read so far.
    public var data: Data { bytes.withLock { $0 } }

    /// Waits up to `timeout` seconds for the end (a process the child left behind may hold the
    /// pipe open); what was read by then.
    public func waitForEnd(timeout: Double) -> Data {
        if finished.wait(timeout: .now() + timeout) == .success { finished.signal() }
        return data
    }
}
