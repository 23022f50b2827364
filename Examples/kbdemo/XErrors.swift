import CXft
import Synchronization

/// What Xlib does when the server reports an error or the connection breaks. Xlib's defaults exit
/// the process; the app instead logs a protocol error and goes on, and on a broken connection
/// records the fact and lets its loop end cleanly. Installed before the keyboard backend opens
/// its own connection, so the backend's hooks pass errors of the app's connection on to these.
enum XConnectionBroken {
    private static let state = Atomic<Bool>(false)

    /// True once the app's connection to the X server broke.
    static var flag: Bool { state.load(ordering: .acquiring) }

    /// Installs the process-wide error handler and the connection's exit hook.
    static func install(on display: OpaquePointer) {
        XSetErrorHandler { _, event in
            let code = event.map { Int($0.pointee.error_code) } ?? -1
            let request = event.map { Int($0.pointee.request_code) } ?? -1
            say("X error \(code) on request \(request), ignored")
            return 0
        }
        // Xlib's default I/O error handler exits; this one returns, and the exit hook below
        // records the break, so the failing call unwinds and the loop ends with a message.
        XSetIOErrorHandler { _ in 0 }
        XSetIOErrorExitHandler(
            display,
            { _, _ in
                XConnectionBroken.state.store(true, ordering: .releasing)
            }, nil)
    }
}
