import CWayland
import Glibc

/// A failure to reach or keep the compositor, with a message for people.
struct WaylandError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    var description: String
}

/// One connection to a Wayland compositor and the loop that reads it. Not thread-safe: after
/// `start`, only the backend's loop thread touches it.
final class WaylandDisplay {
    /// The `wl_display`.
    let display: OpaquePointer
    /// The socket, for messages: the name given, or `WAYLAND_DISPLAY`.
    let socketName: String

    /// Connects to `name` (a socket name in `XDG_RUNTIME_DIR`, or an absolute path), or to
    /// `WAYLAND_DISPLAY` when nil.
    init(name: String?) throws(WaylandError) {
        let shown = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
        guard let display = wl_display_connect(name) else {
            throw WaylandError(description: "cannot connect to the Wayland compositor at \(shown): \(Self.errnoText())")
        }
        self.display = display
        socketName = shown
    }

    deinit { wl_display_disconnect(display) }

    /// Sends every request and waits until the compositor has answered them all.
    func roundtrip() throws(WaylandError) {
        if wl_display_roundtrip(display) < 0 { throw WaylandError(description: lostText()) }
    }

    /// Why the connection broke, for people.
    func lostText() -> String {
        let code = wl_display_get_error(display)
        var interface: UnsafePointer<wl_interface>?
        var object: UInt32 = 0
        if code == EPROTO {
            let protocolCode = wl_display_get_protocol_error(display, &interface, &object)
            let name = interface.map { String(cString: $0.pointee.name) } ?? "unknown interface"
            return "protocol error \(protocolCode) on \(name)@\(object) from the compositor at \(socketName)"
        }
        let reason = code == 0 ? "the connection closed" : String(cString: strerror(code))
        return "lost the connection to the Wayland compositor at \(socketName): \(reason)"
    }

    /// How the event loop ended.
    enum LoopEnd: Sendable, Equatable {
        /// `wakeFD` became readable: the backend is stopping.
        case stopped
        /// The connection broke; the reason is for people.
        case lost(String)
    }

    /// Dispatches events until `wakeFD` becomes readable or the connection breaks. Blocks in
    /// `poll` between events, so it uses no CPU while nothing happens; `prepare_read` /
    /// `read_events` rather than `wl_display_dispatch` so that the wake fd can end the wait.
    func run(wakeFD: Int32) -> LoopEnd {
        let connection = wl_display_get_fd(display)
        var fds = [
            pollfd(fd: connection, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            while wl_display_prepare_read(display) != 0 {
                if wl_display_dispatch_pending(display) < 0 { return .lost(lostText()) }
            }
            // Requests made by the handlers must reach the compositor before we sleep; a full
            // socket buffer (EAGAIN) waits for POLLOUT.
            var wantOut = false
            if wl_display_flush(display) < 0 {
                if errno != EAGAIN {
                    wl_display_cancel_read(display)
                    return .lost(lostText())
                }
                wantOut = true
            }
            fds[0].events = Int16(POLLIN) | (wantOut ? Int16(POLLOUT) : 0)
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                wl_display_cancel_read(display)
                if errno == EINTR { continue }
                return .lost("poll failed on the Wayland connection: \(Self.errnoText())")
            }
            if fds[1].revents != 0 {
                wl_display_cancel_read(display)
                return .stopped
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                if wl_display_read_events(display) < 0 { return .lost(lostText()) }
            } else {
                wl_display_cancel_read(display)
                if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { return .lost(lostText()) }
            }
            if wl_display_dispatch_pending(display) < 0 { return .lost(lostText()) }
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// A pipe whose write end ends the event loop's `poll`.
final class WakePipe: Sendable {
    /// Polled by the loop.
    let readFD: Int32
    private let writeFD: Int32

    /// Opens the pipe.
    init() throws(WaylandError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw WaylandError(description: "cannot open a pipe: \(WaylandDisplay.errnoText())")
        }
        readFD = ends[0]
        writeFD = ends[1]
        _ = fcntl(readFD, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeFD, F_SETFD, FD_CLOEXEC)
    }

    /// Makes the read end readable, once and for good.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    deinit {
        close(readFD)
        close(writeFD)
    }
}
