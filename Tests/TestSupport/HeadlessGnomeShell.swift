import Foundation

/// A headless GNOME Shell (`gnome-shell --wayland --headless --virtual-monitor 1280x800
/// --unsafe-mode`) with its on-screen keyboard enabled, from Debian 12 (GNOME 43) or the Debian 13
/// userland (GNOME 48, without Xwayland), on a private session bus and a stand-in system bus (the
/// shell wants one where logind's seat directory exists), all run as `TestUser`. The package's
/// extension is installed with `kbwatch --install-gnome-extension` before the shell starts, unless
/// told otherwise. `Eval` (unsafe mode) drives what a person would: clicks, the overview,
/// animations. Everything ends by pid when released, the shell's helpers included.
public final class HeadlessGnomeShell: @unchecked Sendable {
    /// The scratch directories: `xdg` holds the buses and the Wayland socket.
    public let runtime: RuntimeDirectory
    /// `unix:path=...` of the session bus.
    public let busAddress: String
    /// The Debian stack the shell comes from.
    public let stack: Stack
    /// GNOME Shell, while it runs.
    public private(set) var shell: ChildProcess?
    /// The absolute path of the shell's Wayland socket.
    public let socket: String
    private let bus: ChildProcess
    private let systemBus: ChildProcess
    /// The session's user, whom its bus lets in.
    public let user: (uid: uid_t, gid: gid_t)
    private let kbwatchCopy: String
    private var apps: [ChildProcess] = []

    /// The programs a GNOME test needs on `stack`.
    public static let programs = ["gnome-shell", "dbus-daemon", "gsettings", "python3"]

    /// Starts the buses, enables the keyboard, installs the extension when `withExtension`, and
    /// starts the shell; `animations` brings the keyboard's slide back (software rendering turns
    /// animations off).
    public init(stack: Stack = .debian12, withExtension: Bool = true, animations: Bool = true) throws {
        self.stack = stack
        user = try TestUser.ensure()
        runtime = try RuntimeDirectory(owner: user, prefix: "kbadapter-gnome")
        busAddress = "unix:path=\(runtime.xdg)/bus"
        socket = runtime.xdg + "/wayland-0"
        let bin = runtime.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // The test user may not reach the build directory (a clone under /root): kbwatch is copied.
        kbwatchCopy = bin + "/kbwatch"
        try FileManager.default.copyItem(atPath: Kbwatch.path, toPath: kbwatchCopy)
        chmod(kbwatchCopy, 0o755)
        var started: [ChildProcess] = []
        do {
            bus = try Self.startBus(at: runtime.xdg + "/bus", stack: stack, user: user, runtime: runtime)
            started.append(bus)
            systemBus = try Self.startBus(at: runtime.xdg + "/system-bus", stack: stack, user: user, runtime: runtime)
            started.append(systemBus)
        } catch {
            for process in started.reversed() { process.stop() }
            throw error
        }
        do {
            try setting("org.gnome.desktop.a11y.applications", "screen-keyboard-enabled", "true")
            // The pointer starts in the top left corner, on the hot corner's barriers: its first
            // moves there open the overview, which then takes the click meant for an app (a click
            // that seemed to need repeating). Nobody here means to open the overview.
            try setting("org.gnome.desktop.interface", "enable-hot-corners", "false")
            if withExtension {
                let installed = try kbwatch([
                    "--install-gnome-extension", "--gnome-shell-version", String(stack.gnomeShellMajor),
                ])
                if installed.status != 0 { throw TestFailure("installing the extension failed:\n\(installed.output)") }
            }
            try start(animations: animations)
        } catch {
            stop()
            throw error
        }
    }

    private static func startBus(
        at path: String, stack: Stack, user: (uid: uid_t, gid: gid_t), runtime: RuntimeDirectory
    ) throws -> ChildProcess {
        let (program, arguments) = try Userland.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "dbus-daemon", "--session", "--address=unix:path=\(path)", "--nofork", "--nopidfile",
            ], on: stack, as: user, accounts: runtime.path)
        let bus = try ChildProcess(program, arguments, directory: runtime.path)
        try Wait.require("a bus socket at \(path)", timeout: 10) { UnixSocket.accepts(path) || !bus.isRunning }
        if !bus.isRunning { throw TestFailure("dbus-daemon exited:\n\(bus.log)") }
        return bus
    }

    /// Starts the shell (again, after ``stopShell()``: a new login) and waits until it is ready,
    /// out of the overview, with its keyboard's animations on when `animations`.
    public func start(animations: Bool = true) throws {
        let (program, arguments) = try Userland.command(
            ["/usr/bin/env", "-i"] + environment + [
                "DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(runtime.xdg)/system-bus", "NO_AT_BRIDGE=1",
                "gnome-shell", "--wayland", "--headless", "--virtual-monitor", "1280x800", "--unsafe-mode",
            ] + (stack == .debian12 ? [] : ["--no-x11"]), on: stack, as: user, accounts: runtime.path)
        let shell = try ChildProcess(program, arguments, directory: runtime.path)
        self.shell = shell
        let ready = Wait.until(timeout: 120, interval: 0.05) {
            (try? self.eval("Main.layoutManager._startingUp")) == "false" || !shell.isRunning
        }
        if !ready { throw TestFailure("GNOME Shell was not ready in 120 s:\n\(shell.log.suffix(3000))") }
        if !shell.isRunning { throw TestFailure("gnome-shell exited early:\n\(shell.log)") }
        _ = try eval("Main.overview.hide()")
        if animations { _ = try eval("imports.gi.St.Settings.get().uninhibit_animations()") }
        // A new virtual pointer's first events are lost while the seat takes it in: made now. (A
        // touchscreen only by ``makeTouchscreen()``: while one exists the shell is in touch mode.)
        _ = try eval(
            Self.pointer + "; global._kbadapterPointer.notify_absolute_motion("
                + "imports.gi.GLib.get_monotonic_time(), 1, 1)")
        try Wait.require("the overview to be hidden", timeout: 10) {
            (try? self.eval("Main.overview.visible")) == "false"
        }
    }

    /// Ends the shell (and what it started), keeping the buses: a logout.
    public func stopShell() {
        shell?.stop()
        shell = nil
    }

    /// Ends the session bus (the shell goes with it): what a session's end looks like to a watcher.
    public func stopBus() {
        bus.stop()
    }

    /// The variables of the session, as a client of it needs them.
    public var environment: [String] {
        [
            "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)", "LANG=C.UTF-8",
            "DBUS_SESSION_BUS_ADDRESS=\(busAddress)", "GSETTINGS_BACKEND=dconf", "XDG_SESSION_TYPE=wayland",
            "XDG_CURRENT_DESKTOP=GNOME",
        ]
    }

    /// Runs `command` as the session's user in its environment on the host, to completion.
    public func run(_ command: [String], timeout: Double = 30) throws -> (status: Int32, output: String) {
        let (program, arguments) = TestUser.command(["/usr/bin/env", "-i"] + environment + command, as: user)
        return try Programs.run(program, arguments, timeout: timeout)
    }

    /// Runs kbwatch (a copy the user can reach) with `arguments` as the session's user, `extra`
    /// variables added; the output holds its standard error too.
    public func kbwatch(_ arguments: [String], extra: [String] = []) throws -> (status: Int32, output: String) {
        try run(extra + ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", kbwatchCopy] + arguments)
    }

    /// Starts kbwatch with `arguments` as the session's user, its lines stamped as they come.
    public func watch(_ arguments: [String], extra: [String] = []) throws -> WatchedProcess {
        let (program, arguments) = TestUser.command(
            ["/usr/bin/env", "-i"] + environment + extra + [kbwatchCopy] + arguments, as: user)
        return try WatchedProcess(program, arguments)
    }

    /// Starts `command` on the host as the session's user, its lines stamped as they come.
    public func watchCommand(_ command: [String]) throws -> WatchedProcess {
        let (program, arguments) = TestUser.command(["/usr/bin/env", "-i"] + environment + command, as: user)
        return try WatchedProcess(program, arguments)
    }

    /// Copies `program` (built next to the running executable) where the session's user can run it.
    public func reachableCopy(of path: String) throws -> String {
        let copy = runtime.path + "/bin/" + URL(fileURLWithPath: path).lastPathComponent
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
        }
        chmod(copy, 0o755)
        return copy
    }

    /// Sets a GSettings key of the session (its dconf, through the session bus).
    public func setting(_ schema: String, _ key: String, _ value: String) throws {
        let (program, arguments) = try Userland.command(
            ["/usr/bin/env", "-i"] + environment + ["gsettings", "set", schema, key, value], on: stack, as: user,
            accounts: runtime.path)
        let result = try Programs.run(program, arguments, timeout: 30)
        if result.status != 0 { throw TestFailure("gsettings set \(schema) \(key) \(value): \(result.output)") }
    }

    /// Runs JavaScript in the shell (`org.gnome.Shell.Eval`) and returns its value as JSON text;
    /// throws with the shell's message when it fails.
    @discardableResult
    public func eval(_ code: String) throws -> String {
        let result = try run([
            "gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path", "/org/gnome/Shell", "--method",
            "org.gnome.Shell.Eval", code,
        ])
        guard result.status == 0 else { throw TestFailure("Eval failed: \(result.output)") }
        // `(true, '"value"')`: the second part is a GVariant string holding JSON.
        let output = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.hasPrefix("(true, "), output.hasSuffix(")") else {
            throw TestFailure("Eval of \(code) failed: \(output)")
        }
        var value = String(output.dropFirst(7).dropLast())
        // The GVariant string's quotes, then a JSON string's.
        for quote in ["'", "\""] where value.count >= 2 && value.hasPrefix(quote) && value.hasSuffix(quote) {
            value = String(value.dropFirst().dropLast())
        }
        return value.replacingOccurrences(of: "\\'", with: "'")
    }

    /// Whether the shell's keyboard is visible, as the shell says.
    public var keyboardVisible: Bool? {
        (try? eval("Main.keyboard.visible")).map { $0 == "true" }
    }

    /// The keyboard actor's on-screen extents, rounded edge by edge as the extension's reader
    /// does: `x,y WxH`.
    public func keyboardExtents() throws -> String {
        try eval(
            "(() => { const e = Main.keyboard.keyboardActor.get_transformed_extents(); "
                + "const l = Math.round(e.origin.x), t = Math.round(e.origin.y); "
                + "return `${l},${t} ${Math.round(e.origin.x + e.size.width) - l}x"
                + "${Math.round(e.origin.y + e.size.height) - t}`; })()")
    }

    /// Opens then closes the keyboard once through the shell: its first close after start throws
    /// (ibus' typing-booster schema is missing) and leaves the keyboard up; later ones work.
    public func warmUp() throws {
        _ = try eval("Main.keyboard.open(Main.layoutManager.primaryIndex)")
        try Wait.require("the warm-up keyboard to show", timeout: 10) { self.keyboardVisible == true }
        // Each close restarts the shell's 300 ms rest: asked again only after it had time to act.
        for _ in 0..<5 where keyboardVisible != false {
            _ = try? eval("Main.keyboard.close()")
            _ = Wait.until(timeout: 1.5) { self.keyboardVisible == false }
        }
        if keyboardVisible != false { throw TestFailure("the warm-up keyboard does not hide") }
        // The hide's slide ends 300 ms + 150 ms after the close.
        Thread.sleep(forTimeInterval: 0.8)
    }

    /// Starts a GTK 3 Wayland app (`/usr/bin/python3` running `script`) as the session's user,
    /// ended with the session, and waits for its window to be mapped.
    public func launchGTK(_ script: String, name: String, arguments: [String] = []) throws -> ChildProcess {
        let path = try runtime.write(name, script)
        return try launch(["/usr/bin/python3", path] + arguments, name: name)
    }

    /// Starts `command` in the session (inside the stack's userland) as the session's user, a
    /// Wayland client with `extra` variables, ended with the session, and waits for its window
    /// (one of its process or of a descendant's).
    public func launch(_ command: [String], extra: [String] = [], name: String) throws -> ChildProcess {
        let (program, arguments) = try Userland.command(
            ["/usr/bin/env", "-i"] + environment + [
                "WAYLAND_DISPLAY=\(socket)", "GDK_BACKEND=wayland", "NO_AT_BRIDGE=1",
            ] + extra + command, on: stack, as: user, accounts: runtime.path)
        let app = try ChildProcess(program, arguments, directory: runtime.path)
        apps.append(app)
        let pid = app.pid
        try Wait.require("the window of \(name)", timeout: 20) {
            (try? self.eval(Self.windowOf(pid) + "?.get_pid() ?? 0")).map { $0 != "0" } == true || !app.isRunning
        }
        if !app.isRunning { throw TestFailure("\(name) exited:\n\(app.log)") }
        return app
    }

    /// JavaScript naming the window whose client is `pid` or a descendant of it (bubblewrap runs
    /// the app as its child on Debian 13).
    public static func windowOf(_ pid: Int32) -> String {
        "global.get_window_actors().map(a => a.meta_window).find(w => { let p = w.get_pid(); "
            + "for (let i = 0; i < 4 && p > 1; i++) { if (p === \(pid)) return true; "
            + "try { p = parseInt(new TextDecoder().decode(imports.gi.GLib.file_get_contents(`/proc/${p}/stat`)[1])"
            + ".split(') ')[1].split(' ')[1]); } catch (e) { return false; } } return false; })"
    }

    /// The pid the shell gives the window of `app` (the process inside bubblewrap on Debian 13).
    public func windowPID(of app: ChildProcess) throws -> Int32 {
        guard let pid = Int32(try eval(Self.windowOf(app.pid) + "?.get_pid() ?? 0")), pid > 0 else {
            throw TestFailure("no window for pid \(app.pid)")
        }
        return pid
    }

    /// Activates the window of `app` and clicks the middle of its first text entry row with a
    /// virtual pointer (a click in a focused GTK entry is what opens the keyboard: focus alone
    /// does not), the way a finger would.
    public func click(_ app: ChildProcess, y fraction: Double = 0.75) throws {
        let window = Self.windowOf(app.pid)
        _ = try eval("\(window).activate(global.get_current_time())")
        Thread.sleep(forTimeInterval: 0.3)
        let code = """
            (() => {
                const Clutter = imports.gi.Clutter, GLib = imports.gi.GLib;
                \(Self.pointer);
                const pointer = global._kbadapterPointer;
                \(Self.entryPoint(window, fraction))
                pointer.notify_absolute_motion(GLib.get_monotonic_time(), x - 1, y);
                pointer.notify_absolute_motion(GLib.get_monotonic_time(), x, y);
                pointer.notify_button(GLib.get_monotonic_time(), Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
                pointer.notify_button(GLib.get_monotonic_time(), Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED);
                return `${x},${y}`;
            })()
            """
        _ = try eval(code)
    }

    /// Taps the middle of the first text entry row of `app`'s window (activated first) with a
    /// virtual touchscreen, as a finger would. GTK 4.24 asks for the keyboard on a tap, never on a
    /// pointer click, and GNOME Shell 50 and 51 act on that request only at the app's next commit
    /// to its text input, which its next tap brings: when the keyboard is not up a second after
    /// the tap, the entry is tapped once more.
    public func tap(_ app: ChildProcess, y fraction: Double = 0.75) throws {
        let window = Self.windowOf(app.pid)
        try focus(app)
        Thread.sleep(forTimeInterval: 0.3)
        // A finger rests on the glass for a moment: down and up are two events apart in time.
        let down = """
            (() => {
                const GLib = imports.gi.GLib;
                \(Self.touchscreen);
                \(Self.entryPoint(window, fraction))
                global._kbadapterTouch.notify_touch_down(GLib.get_monotonic_time(), 0, x, y);
                return `${x},${y}`;
            })()
            """
        let up = "global._kbadapterTouch.notify_touch_up(imports.gi.GLib.get_monotonic_time(), 0)"
        func once() throws {
            _ = try eval(down)
            Thread.sleep(forTimeInterval: 0.05)
            _ = try eval(up)
        }
        try once()
        // The keyboard opens 300 ms after the request, then slides for 150 ms.
        if Wait.until(timeout: 1.2, interval: 0.05, { self.keyboardVisible == true }) { return }
        Thread.sleep(forTimeInterval: 0.5)  // beyond GTK's double-tap time
        try once()
    }

    /// JavaScript declaring `x` and `y`: the middle of `window`'s width, `fraction` of its height down.
    static func entryPoint(_ window: String, _ fraction: Double) -> String {
        "const r = \(window).get_frame_rect(); const x = r.x + r.width / 2, y = r.y + r.height * \(fraction);"
    }

    /// Activates the window of `app` and waits until it has the focus (a window mapped while
    /// another had it may not be given it at once).
    public func focus(_ app: ChildProcess) throws {
        let window = Self.windowOf(app.pid)
        // Asked again a tenth of a second apart: each activation is work for the shell.
        let focused = Wait.until(timeout: 5, interval: 0.1) {
            _ = try? self.eval("\(window).activate(global.get_current_time())")
            return (try? self.eval("global.display.focus_window === \(window)")) == "true"
        }
        if !focused { throw TestFailure("the window of pid \(app.pid) did not get the focus in 5 s") }
    }

    /// Makes the session's virtual touchscreen ahead of the first ``tap(_:y:)``: a new device's
    /// first events are lost while the seat takes it in.
    public func makeTouchscreen() throws {
        _ = try eval(Self.touchscreen)
    }

    /// JavaScript making the session's virtual touchscreen, once.
    static let touchscreen =
        "if (!global._kbadapterTouch) global._kbadapterTouch = (global.stage.context ? "
        + "global.stage.context.get_backend() : imports.gi.Clutter.get_default_backend()).get_default_seat()"
        + ".create_virtual_device(imports.gi.Clutter.InputDeviceType.TOUCHSCREEN_DEVICE)"

    /// JavaScript making the session's virtual pointer, once.
    static let pointer =
        "if (!global._kbadapterPointer) global._kbadapterPointer = (global.stage.context ? "
        + "global.stage.context.get_backend() : imports.gi.Clutter.get_default_backend()).get_default_seat()"
        + ".create_virtual_device(imports.gi.Clutter.InputDeviceType.POINTER_DEVICE)"

    /// Activates the window of `app` (the focus leaves any other).
    public func activate(_ app: ChildProcess) throws {
        _ = try eval("\(Self.windowOf(app.pid)).activate(global.get_current_time())")
    }

    /// Ends the apps, the shell, the buses and anything else of the session.
    public func stop() {
        for app in apps { app.stop() }
        apps.removeAll()
        stopShell()
        bus.stop()
        systemBus.stop()
        for pid in Programs.processes(withRuntimeDirectory: runtime.xdg) { kill(pid, SIGKILL) }
    }

    deinit { stop() }
}
