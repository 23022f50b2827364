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

    /// Starts Weston from `stack` headless (pixman, 1280x800, desktop shell, its own input-method
    /// keyboard) and waits for its socket.
    public init(stack: Stack = .debian12, timeout: Double = 15) throws {
        let user = try TestUser.ensure()
        runtime = try RuntimeDirectory(owner: user)
        var ini = "[core]\nshell=desktop-shell.so\nxwayland=false\n"
        // Debian keeps Weston's helper clients in the multiarch library directory.
        let helpers = [
            "/usr/lib/x86_64-linux-gnu/weston-keyboard", "/usr/lib/aarch64-linux-gnu/weston-keyboard",
            "/usr/libexec/weston-keyboard",
        ]
        let inStack = { (path: String) in
            stack.suite != nil ? Userland.isExecutable(path, on: stack) : Programs.find(path) != nil
        }
        if let keyboard = helpers.first(where: inStack) {
            ini += "\n[input-method]\npath=\(keyboard)\n"
        }
        let config = try runtime.write("weston.ini", ini)
        // Weston 10 (Debian 12) names its backend by file and its renderer by a flag; Weston 14
        // (Debian 13) and 16 (forky) take names.
        let backend =
            stack == .debian12
            ? ["--backend=headless-backend.so", "--use-pixman"] : ["--backend=headless", "--renderer=pixman"]
        let (program, arguments) = try Userland.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "weston",
            ] + backend + [
                "--width=1280", "--height=800", "--socket=wayland-1", "--config=\(config)", "--idle-time=0",
            ],
            on: stack, as: user, accounts: runtime.path)
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
