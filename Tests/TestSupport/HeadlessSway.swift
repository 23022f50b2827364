import Foundation
import KeyboardAdapterCore

/// A headless sway for one test: its own runtime directory, run as `TestUser`, with outputs
/// and bars as asked. Ended by its pid when released.
public final class HeadlessSway: @unchecked Sendable {
    /// One headless output: `HEADLESS-n` in creation order.
    public struct OutputSpec: Sendable {
        /// Mode width in pixels.
        public var width: Int
        /// Mode height in pixels.
        public var height: Int
        /// Position in the global layout.
        public var x: Int
        /// Position in the global layout.
        public var y: Int
        /// Output scale.
        public var scale: Int
        /// Creates a spec.
        public init(width: Int, height: Int, x: Int = 0, y: Int = 0, scale: Int = 1) {
            self.width = width
            self.height = height
            self.x = x
            self.y = y
            self.scale = scale
        }
    }

    /// Where a swaybar sits.
    public enum BarPosition: String, Sendable {
        /// At the top.
        case top
        /// At the bottom.
        case bottom
    }

    /// The scratch directories.
    public let runtime: RuntimeDirectory
    /// The compositor process.
    public let process: ChildProcess
    /// The absolute path of the Wayland socket (usable as `WAYLAND_DISPLAY`).
    public let socket: String
    /// The Debian stack sway comes from.
    public let stack: Stack

    /// Starts sway from `stack` with `outputs` (HEADLESS-1, HEADLESS-2, ...), an optional bar and
    /// `extraConfig` lines, at `niceness` (0: as the tests), and waits until its Wayland socket exists.
    public init(
        outputs: [OutputSpec] = [OutputSpec(width: 1280, height: 800)], bar: BarPosition? = nil,
        extraConfig: String = "", timeout: Double = 15, stack: Stack = .debian12, niceness: Int = 0
    ) throws {
        self.stack = stack
        let user = try TestUser.ensure()
        runtime = try RuntimeDirectory(owner: user)
        var config = "xwayland disable\n"
        for (index, output) in outputs.enumerated() {
            config +=
                "output HEADLESS-\(index + 1) mode \(output.width)x\(output.height) "
                + "position \(output.x) \(output.y) scale \(output.scale)\n"
        }
        if let bar {
            // No status command: swaybar 1.7 can spin forever on the end of a command's output
            // (seen with `echo`), and then never puts a bar on an output plugged later.
            config += "bar {\n    position \(bar.rawValue)\n}\n"
        }
        config += extraConfig
        let configPath = try runtime.write("sway.config", config)
        // env -i keeps the test's display variables away from it; env execs sway in place, so the
        // pid we hold is sway's own.
        // A sway made to work hard (a test's flood of views) can be made to yield to the other tests
        // running beside it.
        let nice = niceness == 0 ? [] : ["nice", "-n", String(niceness)]
        let (program, arguments) = try Userland.command(
            nice + [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1",
                "WLR_HEADLESS_OUTPUTS=\(outputs.count)", "sway", "-c", configPath,
            ], on: stack, as: user, accounts: runtime.path)
        process = try ChildProcess(program, arguments, directory: runtime.path)
        socket = runtime.xdg + "/wayland-1"
        let socketPath = socket
        let sway = process
        do {
            try Wait.require("sway's Wayland socket \(socketPath)", timeout: timeout) {
                UnixSocket.accepts(socketPath) || !sway.isRunning
            }
            if !sway.isRunning { throw TestFailure("sway exited early:\n\(sway.log)") }
        } catch {
            sway.stop()
            throw error
        }
    }

    /// Variables a client (run as the test process's user) needs to reach this sway.
    public var clientEnvironment: [String: String?] {
        [
            "WAYLAND_DISPLAY": socket, "XDG_RUNTIME_DIR": runtime.xdg, "DISPLAY": nil, "HOME": runtime.home,
            "SWAYSOCK": ipcSocket,
        ]
    }

    /// sway's IPC socket, once it exists.
    public var ipcSocket: String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime.xdg)) ?? []
        return names.first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }.map { runtime.xdg + "/" + $0 }
    }

    /// An output's rectangle in sway's layout (from IPC), or nil when sway has no such output.
    public func outputFrame(_ name: String) -> Rect? {
        guard let json = try? message(["-t", "get_outputs", "-r"]),
            let list = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
            let rect = list.first(where: { $0["name"] as? String == name })?["rect"] as? [String: Int],
            let x = rect["x"], let y = rect["y"], let width = rect["width"], let height = rect["height"]
        else { return nil }
        return Rect(x: x, y: y, width: width, height: height)
    }

    /// Runs `swaymsg` with `arguments` against this sway and returns its output.
    @discardableResult
    public func message(_ arguments: [String]) throws -> String {
        guard let ipc = ipcSocket else { throw TestFailure("sway has no IPC socket in \(runtime.xdg)") }
        let result = try Programs.run("swaymsg", ["-s", ipc] + arguments)
        guard result.status == 0 else {
            throw TestFailure("swaymsg \(arguments.joined(separator: " ")) failed: \(result.output)")
        }
        return result.output
    }

    /// Starts a client of this sway from its stack (a keyboard such as wvkbd) with
    /// `clientEnvironment` and `environment`: on Debian 12 as the test process; in a userland as the
    /// test user, or as the test process's own user when `asTestUser` is false (a client of a
    /// session bus the test process runs).
    public func startClient(
        _ command: [String], environment: [String: String] = [:], asTestUser: Bool = true
    ) throws -> ChildProcess {
        guard stack.suite != nil else {
            return try ChildProcess(
                command[0], Array(command.dropFirst()), environment: clientEnvironment.merging(environment) { $1 },
                directory: runtime.path)
        }
        return try Userland.startClient(
            command, on: stack, socket: socket, runtime: runtime, environment: environment, asTestUser: asTestUser)
    }

    /// Starts wvkbd-mobintl hidden as a client of this sway and waits until it handles SIGUSR1
    /// (hide) and SIGUSR2 (show).
    public func startWvkbd(arguments: [String] = []) throws -> ChildProcess {
        try Self.waitForSignals(try startClient(["wvkbd-mobintl", "--hidden"] + arguments))
    }

    /// Waits until a started wvkbd handles SIGUSR1 and SIGUSR2 (hide and show), on any compositor.
    public static func waitForSignals(_ keyboard: ChildProcess) throws -> ChildProcess {
        do {
            try Wait.require("wvkbd to handle SIGUSR1 and SIGUSR2", timeout: 10) {
                keyboard.handles(SIGUSR1) && keyboard.handles(SIGUSR2) || !keyboard.isRunning
            }
            if !keyboard.isRunning { throw TestFailure("wvkbd exited early:\n\(keyboard.log)") }
        } catch {
            keyboard.stop()
            throw error
        }
        return keyboard
    }

    /// Runs a GTK 3 Python `script` (written to `name`) with `arguments` as a Wayland client of
    /// this sway, as sway's user, in a clean environment (`env -i` execs it, so the pid is
    /// Python's); ended with sway.
    public func launchGTK(_ script: String, name: String, arguments: [String] = []) throws -> ChildProcess {
        let path = try runtime.write(name, script)
        let user = try TestUser.ensure()
        let (program, commandArguments) = try Userland.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "WAYLAND_DISPLAY=\(socket)", "GDK_BACKEND=wayland", "NO_AT_BRIDGE=1", "/usr/bin/python3", path,
            ] + arguments, on: stack, as: user, accounts: runtime.path)
        return try ChildProcess(program, commandArguments, directory: runtime.path)
    }

    /// Ends sway by its pid.
    public func stop() {
        process.stopWithDescendants()
        // swaybar and clients left behind by a sway that died on its own.
        for pid in Programs.processes(withRuntimeDirectory: runtime.xdg) { kill(pid, SIGKILL) }
    }

    deinit { stop() }
}
