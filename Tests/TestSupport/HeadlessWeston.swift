import Foundation

/// A headless Weston for one test (a compositor without wlr-layer-shell), run as `TestUser`
/// with its own runtime directory. Ended by its pid when released.
public final class HeadlessWeston: @unchecked Sendable {
    /// The scratch directories.
    public let runtime: RuntimeDirectory
    /// The compositor process.
    public let process: ChildProcess
    /// The absolute path of the Wayland socket.
    public let socket: String

    /// Starts Weston headless (pixman, 1280x800, desktop shell, its own input-method keyboard)
    /// and waits for its socket.
    public init(timeout: Double = 15) throws {
        let user = try TestUser.ensure()
        runtime = try RuntimeDirectory(owner: user)
        var ini = "[core]\nshell=desktop-shell.so\nxwayland=false\n"
        // Debian keeps Weston's helper clients in the multiarch library directory.
        let helpers = [
            "/usr/lib/x86_64-linux-gnu/weston-keyboard", "/usr/lib/aarch64-linux-gnu/weston-keyboard",
            "/usr/libexec/weston-keyboard",
        ]
        if let keyboard = helpers.first(where: { Programs.find($0) != nil }) {
            ini += "\n[input-method]\npath=\(keyboard)\n"
        }
        let config = try runtime.write("weston.ini", ini)
        let (program, arguments) = TestUser.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "weston", "--backend=headless-backend.so", "--use-pixman", "--width=1280", "--height=800",
                "--socket=wayland-1", "--config=\(config)", "--idle-time=0",
            ], as: user)
        process = try ChildProcess(program, arguments, directory: runtime.path)
        socket = runtime.xdg + "/wayland-1"
        let socketPath = socket
        let weston = process
        do {
            try Wait.require("Weston's Wayland socket \(socketPath)", timeout: timeout) {
                UnixSocket.accepts(socketPath) || !weston.isRunning
            }
            if !weston.isRunning { throw TestFailure("weston exited early:\n\(weston.log)") }
        } catch {
            weston.stop()
            throw error
        }
    }

    /// Ends Weston by its pid.
    public func stop() {
        process.stopWithDescendants()
        for pid in Programs.processes(withRuntimeDirectory: runtime.xdg) { kill(pid, SIGKILL) }
    }

    deinit { stop() }
}
