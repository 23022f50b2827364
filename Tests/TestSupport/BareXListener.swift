import CThreadSlice
import CX11
import Foundation
import Glibc
import KeyboardAdapterCore
import KeyboardBackendInterface
import Synchronization

/// The floor that benchmarks compare the X11 backend and kbwatch with: a plain Xlib client on a
/// connection of its own that selects SubstructureNotify on the root window and stamps every
/// ConfigureNotify of one window with `MonotonicClock.now()` as it reads it. No tracker, no
/// manager, no process hop: what any X client pays to hear of a move.
///
/// It reads on a dedicated thread blocked in `poll()` on the connection and a wake pipe (no
/// timeout), so it costs nothing while nothing happens.
public final class BareXListener: @unchecked Sendable {
    /// One ConfigureNotify of the window: its position and the time it was read.
    public struct Notify: Sendable {
        /// The window's x in the root.
        public var x: Int
        /// The window's y in the root.
        public var y: Int
        /// `MonotonicClock.now()` when the event was read.
        public var time: Double
    }

    /// The window whose ConfigureNotify are stamped.
    public let window: Window
    private let client: XTestClient
    /// How many notifies are kept one by one (`notify(_:)`); later ones only count and update
    /// `last`, so that a storm does not grow the listener's memory.
    public let historyLimit: Int
    private let received = Mutex<(history: [Notify], count: Int, last: Notify?)>(([], 0, nil))
    private let arrived = NSCondition()
    private var wake: [Int32] = [-1, -1]
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    /// Connects to `display` and selects SubstructureNotify on its root; call `start()` to read.
    public init(display: String, window: Window, historyLimit: Int = 10_000) throws {
        self.historyLimit = historyLimit
        client = try XTestClient.connect(display)
        self.window = window
        guard pipe(&wake) == 0 else { throw TestFailure("pipe failed: \(String(cString: strerror(errno)))") }
        client.selectRootEvents(SubstructureNotifyMask)
        client.sync()
    }

    deinit {
        close(wake[0])
        close(wake[1])
    }

    /// Starts the reading thread; with a `slice` (ns), the thread asks the kernel for that time
    /// slice first, as KeyboardAdapter's loop thread does (0: the kernel's default).
    public func start(slice: UInt64 = 0) {
        Thread.detachNewThread { [self] in
            Thread.current.name = "bare-xlistener"
            if slice > 0 { _ = ka_thread_set_slice(0, slice) }
            var fds = [
                pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            while running.load(ordering: .relaxed) {
                while client.pending() > 0 {
                    let event = client.nextEvent()
                    guard event.type == ConfigureNotify, event.xconfigure.window == window else { continue }
                    let notify = Notify(
                        x: Int(event.xconfigure.x), y: Int(event.xconfigure.y), time: MonotonicClock.now())
                    arrived.lock()
                    received.withLock { received in
                        if received.count < historyLimit { received.history.append(notify) }
                        received.count += 1
                        received.last = notify
                    }
                    arrived.broadcast()
                    arrived.unlock()
                }
                _ = poll(&fds, 2, -1)
            }
            done.signal()
        }
    }

    /// Ends the reading thread and waits for it.
    public func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
        done.wait()
    }

    /// How many ConfigureNotify of the window were read so far.
    public var count: Int { received.withLock { $0.count } }

    /// The `index`-th ConfigureNotify read (from 0); nil beyond `historyLimit` or not read yet.
    public func notify(_ index: Int) -> Notify? {
        received.withLock { index < $0.history.count ? $0.history[index] : nil }
    }

    /// The latest ConfigureNotify read, if any.
    public var last: Notify? { received.withLock { $0.last } }

    /// Blocks until more than `count` ConfigureNotify were read, or `timeout` seconds pass; true if they were.
    public func wait(beyond count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        arrived.lock()
        defer { arrived.unlock() }
        while self.count <= count {
            if !arrived.wait(until: deadline) { return self.count > count }
        }
        return true
    }
}
