import Foundation

/// A headless labwc (a wlroots stacking compositor with layer shell) from a userland (labwc 0.8 on
/// Debian 13, 0.20 on forky), run as `TestUser` with a runtime directory of its own; ended by its
/// pid when released. Debian 12 has no labwc.
public final class HeadlessLabwc: @unchecked Sendable {
    /// The scratch directories.
    public let runtime: RuntimeDirectory
    /// The compositor process.
    public let process: ChildProcess
    /// The absolute path of the Wayland socket.
    public let socket: String

    /// The stack labwc comes from.
    public let stack: Stack

    /// Starts labwc of `stack` with one headless output and waits until its Wayland socket accepts.
    public init(stack: Stack = .debian13, timeout: Double = 15) throws {
        self.stack = stack
        let user = try TestUser.ensure()
        runtime = try RuntimeDirectory(owner: user, prefix: "kbadapter-labwc")
        let (program, arguments) = try Userland.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_HEADLESS_OUTPUTS=1",
                "labwc",
            ], on: stack, as: user, accounts: runtime.path)
        process = try ChildProcess(program, arguments, directory: runtime.path)
        let xdg = runtime.xdg
        let labwc = process
        var found: String?
        do {
            try Wait.require("labwc's Wayland socket in \(xdg)", timeout: timeout) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: xdg)) ?? []
                found = names.sorted().first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }.map {
                    xdg + "/" + $0
                }
                return found.map(UnixSocket.accepts) ?? false || !labwc.isRunning
            }
            if !labwc.isRunning {
                throw TestFailure(
                    "labwc exited early (status \(labwc.exitStatus.map(String.init) ?? "?")):\n\(labwc.log)")
            }
        } catch {
            labwc.stop()
            throw error
        }
        socket = found!
    }

    /// Starts a client of this labwc (a keyboard such as wvkbd) in the userland.
    public func startClient(_ command: [String]) throws -> ChildProcess {
        try Userland.startClient(command, on: stack, socket: socket, runtime: runtime)
    }

    /// Ends labwc by its pid, and what it started.
    public func stop() {
        process.stopWithDescendants()
        for pid in Programs.processes(withRuntimeDirectory: runtime.xdg) { kill(pid, SIGKILL) }
    }

    deinit { stop() }
}
