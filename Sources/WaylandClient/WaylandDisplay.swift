import CWayland
import Glibc

/// A failure to reach or keep the compositor, with a message for people.
package struct WaylandError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package var description: String

    /// Creates an error with its message.
    package init(description: String) { self.description = description }
}

/// One connection to a Wayland compositor and the loop that reads it. Not thread-safe: after
/// `start`, only the backend's loop thread touches it.
package final class WaylandDisplay {
    /// The `wl_display`.
    package let display: OpaquePointer
    /// The socket, for messages: the name given, or `WAYLAND_DISPLAY`.
    package let socketName: String

    /// Connects to `name` (a socket name in `XDG_RUNTIME_DIR`, or an absolute path), or to
    /// `WAYLAND_DISPLAY` when nil.
    package init(name: String?) throws(WaylandError) {
        let shown = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
        guard let display = wl_display_connect(name) else {
            throw WaylandError(description: "cannot connect to the Wayland compositor at \(shown): \(Self.errnoText())")
        }
        self.display = display
        socketName = shown
    }

    deinit { wl_display_disconnect(display) }

    /// Sends every request and waits until the compositor has answered them all.
    package func roundtrip() throws(WaylandError) {
        if wl_display_roundtrip(display) < 0 { throw WaylandError(description: lostText()) }
    }

    /// Why the connection broke, for people.
    package func lostText() -> String {
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

    /// Readies a read before the run loop waits: dispatches what is queued until libwayland
    /// lets this thread read, then sends the handlers' requests. Returns the events to poll for
    /// (`POLLOUT` too while the socket buffer is full), or the reason the connection broke.
    /// `prepare_read` / `read_events` rather than `wl_display_dispatch`, so that the wait is the
    /// run loop's own `poll()`.
    package func prepareRead() -> Result<Int16, WaylandError> {
        while wl_display_prepare_read(display) != 0 {
            if wl_display_dispatch_pending(display) < 0 { return .failure(WaylandError(description: lostText())) }
        }
        var wantOut = false
        if wl_display_flush(display) < 0 {
            if errno != EAGAIN {
                wl_display_cancel_read(display)
                return .failure(WaylandError(description: lostText()))
            }
            wantOut = true
        }
        return .success(Int16(POLLIN) | (wantOut ? Int16(POLLOUT) : 0))
    }

    /// Completes the read readied by ``prepareRead()`` with what `poll()` said (reading, or
    /// cancelling when nothing came), then dispatches. Throws when the connection broke.
    package func finishRead(events: Int16) throws(WaylandError) {
        if events & Int16(POLLIN) != 0 {
            if wl_display_read_events(display) < 0 { throw WaylandError(description: lostText()) }
        } else {
            wl_display_cancel_read(display)
            if events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { throw WaylandError(description: lostText()) }
        }
        if wl_display_dispatch_pending(display) < 0 { throw WaylandError(description: lostText()) }
    }

    /// Reads again when more has come, without waiting, and dispatches; true when something was
    /// read. libwayland reads at most 4 KiB at a time, and a compositor closes a client that falls
    /// too far behind (libwayland-server before 1.23 as soon as its socket is full), so a burst
    /// of events (a client mapping thousands of toplevels) is read on within one turn of the loop.
    package func readWaiting() throws(WaylandError) -> Bool {
        if case .failure(let error) = prepareRead() { throw error }
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 0) > 0 ? descriptor.revents & Int16(POLLIN) : 0
        try finishRead(events: ready)
        return ready != 0
    }

    /// The connection's descriptor.
    package var fileDescriptor: Int32 { wl_display_get_fd(display) }

    /// The text of the current `errno`.
    package static func errnoText() -> String { String(cString: strerror(errno)) }
}
