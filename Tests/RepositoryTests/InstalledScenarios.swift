import Foundation
import TestSupport
import Testing

/// What issue 50 asks of the installed packages, on a system where apt installed them (this host,
/// or a newer Debian's copy through `InstalledUserland.use`): the `InstalledApps` run from that
/// system, on a session bus of that system that starts its installed kbwatch; each GObject app
/// hears `will-show` with the keyboard's frame and `local` true while its own window has the
/// focus and false while another app's has it, and `did-hide`; the QML file's
/// `keyboardRectangle` is the keyboard's frame while it is up and empty after it hides. Rounds:
/// one per GObject app, its window focused, the keyboard shown and hidden.
enum InstalledScenarios {
    /// The apps' ids (and window titles), in the rounds' order.
    static let appIDs = [
        "org.keyboardadapter.InstalledPython", "org.keyboardadapter.InstalledGJS",
        "org.keyboardadapter.InstalledC",
    ]

    /// Runs `command` on `stack` (this host's or the installed copy) as the test process's user
    /// (the session bus's), with only `variables` and a PATH.
    static func start(
        _ command: [String], on stack: Stack, variables: [String: String], directory: String
    ) throws -> ChildProcess {
        let environment = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let (program, arguments) = try Userland.command(
            ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "NO_AT_BRIDGE=1", "GTK_A11Y=none"]
                + environment + command, on: stack, as: (getuid(), getgid()), accounts: directory)
        return try ChildProcess(program, arguments, directory: directory)
    }

    /// A shell script run on `stack` as the test process's user; its output, or a throw.
    static func shell(_ script: String, on stack: Stack, directory: String) throws -> String {
        let (program, arguments) = try Userland.command(
            ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "/bin/sh", "-ec", script], on: stack,
            as: (getuid(), getgid()), accounts: directory)
        return try Shell.require(program, arguments, timeout: 300)
    }

    /// The apps started on a display: the three GObject apps and the QML file.
    struct Apps {
        let gobject: [(name: String, process: ChildProcess)]
        let qml: ChildProcess

        func stop() {
            gobject.forEach { $0.process.stop() }
            qml.stop()
        }

        /// Waits until each GObject app has `count` lines of `prefix`.
        func waitAll(_ prefix: String, count: Int) throws {
            for (name, app) in gobject {
                let heard = Wait.until(timeout: 20) { InstalledApps.lines(app.log, prefix).count >= count }
                if !heard {
                    let logs = gobject.map { "\($0.name):\n\($0.process.log)" }.joined(separator: "\n")
                    throw TestFailure("\(name): no \(count) × \(prefix) in 20 s; the apps said:\n\(logs)")
                }
            }
        }

        /// Checks what each heard over the rounds: `frames[i]` the keyboard's frame in round i.
        func check(frames: [String], qmlEmpty: String = "0,0 0x0") {
            for (index, (name, app)) in gobject.enumerated() {
                print("\(name) app:\n\(app.log)")
                let expected = frames.enumerated().map { round, frame in
                    "will-show \(frame) local \(round == index)"
                }
                #expect(InstalledApps.lines(app.log, "will-show") == expected, "\(name)")
                // The hide's end frame is off screen: only its local is compared.
                let hides = InstalledApps.lines(app.log, "did-hide").map { $0.split(separator: " ").last ?? "" }
                #expect(hides == frames.indices.map { "\($0 == index)" }[...].map { Substring($0) }, "\(name)")
            }
            print("qml:\n\(qml.log)")
            let rectangles = InstalledApps.lines(qml.log, "keyboardRectangle")
            let wanted = frames.flatMap { ["keyboardRectangle \($0)", "keyboardRectangle \(qmlEmpty)"] }
            #expect(rectangles == wanted, "the QML file's keyboardRectangle over the rounds")
        }
    }

    /// Starts the apps (the C one built first) with `variables` (the display's and the bus's),
    /// waits until each GObject app has subscribed through the bus (which starts the service) and
    /// the QML file has.
    static func startApps(on stack: Stack, directory: String, variables: [String: String], qmlPlatform: String)
        throws -> Apps
    {
        try InstalledApps.write(into: directory) { try shell($0, on: stack, directory: directory) }
        let qml = try start(
            ["/usr/lib/qt6/bin/qml", directory + "/rectangle.qml"], on: stack,
            variables: variables.merging(["QT_QPA_PLATFORM": qmlPlatform]) { $1 }, directory: directory)
        var gobject: [(name: String, process: ChildProcess)] = []
        do {
            for ((name, command), id) in zip(InstalledApps.commands(in: directory), appIDs) {
                gobject.append((name, try start(command + [id], on: stack, variables: variables, directory: directory)))
            }
            let apps = Apps(gobject: gobject, qml: qml)
            try apps.waitAll("available", count: 1)
            try Wait.require("the QML file subscribed (\(qml.log))", timeout: 20) { qml.log.contains("subscribed") }
            return apps
        } catch {
            gobject.forEach { $0.process.stop() }
            qml.stop()
            throw error
        }
    }

    /// Xvfb (this host's) with openbox, xvkbd and the apps from `stack`'s system: the rounds, each
    /// app's window activated and xvkbd started and ended.
    static func xvkbd(on stack: Stack) throws {
        let start = Date()
        let session = try X11Session()
        defer { session.stop() }
        try session.startWindowManager()
        let bus = try SessionBus(
            directory: session.directory, home: session.directory + "/home", serviceDirectory: session.directory,
            stack: stack)
        defer { bus.stop() }
        try bus.setActivationEnvironment(["DISPLAY": session.display])
        let home = session.directory + "/home"
        let apps = try startApps(
            on: stack, directory: session.directory,
            variables: ["DISPLAY": session.display, "HOME": home, "DBUS_SESSION_BUS_ADDRESS": bus.address],
            qmlPlatform: "xcb")
        defer { apps.stop() }
        let client = try XTestClient.connect(session.display)
        var frames: [String] = []
        for (round, id) in appIDs.enumerated() {
            let window = try session.waitForWindow(["--name", "^" + id + "$"], what: "\(id)'s window")
            try session.activate(window, readBy: client)
            let keyboard = try Self.start(
                ["xvkbd", "-geometry", "600x200+100+500"], on: stack,
                variables: ["DISPLAY": session.display, "HOME": home], directory: session.directory)
            let shown = try session.waitForWindow(["--class", "XVkbd"], what: "xvkbd's window")
            let frame = try #require(try session.xwininfoCovered(shown))
            frames.append("\(frame.x),\(frame.y) \(frame.width)x\(frame.height)")
            try apps.waitAll("will-show", count: round + 1)
            try Wait.require("the QML file's keyboardRectangle (\(apps.qml.log))", timeout: 20) {
                InstalledApps.lines(apps.qml.log, "keyboardRectangle").count >= 2 * round + 1
            }
            keyboard.stop()
            try apps.waitAll("did-hide", count: round + 1)
            try Wait.require("the QML file's keyboardRectangle emptied (\(apps.qml.log))", timeout: 20) {
                InstalledApps.lines(apps.qml.log, "keyboardRectangle").count >= 2 * round + 2
            }
        }
        apps.check(frames: frames)
        print("\(stack), Xvfb with xvkbd: \(String(format: "%.1f s", Date().timeIntervalSince(start)))")
    }

    /// Headless sway with squeekboard, both from `stack`'s system, and the apps as its Wayland
    /// clients: the rounds, each app's window focused through sway and squeekboard shown and hidden
    /// through its own service.
    static func squeekboard(on stack: Stack) throws {
        let start = Date()
        // The QML file's full-screen window on a workspace of its own, the apps' tiles on the first.
        let sway = try HeadlessSway(
            extraConfig: "for_window [title=\"rectangle\"] move container to workspace 2\n", stack: stack)
        defer { sway.stop() }
        let bus = try SessionBus(
            directory: sway.runtime.path, home: sway.runtime.home, serviceDirectory: sway.runtime.path, stack: stack)
        defer { bus.stop() }
        let wayland = [
            "WAYLAND_DISPLAY": sway.socket, "XDG_RUNTIME_DIR": sway.runtime.xdg, "XDG_SESSION_TYPE": "wayland",
            "HOME": sway.runtime.home, "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]
        try bus.setActivationEnvironment(wayland.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" })
        let keyboard = try sway.startClient(
            ["squeekboard"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"],
            asTestUser: false)
        defer { keyboard.stop() }
        try bus.waitForName("sm.puri.OSK0")
        let apps = try startApps(
            on: stack, directory: sway.runtime.path, variables: wayland.merging(["GDK_BACKEND": "wayland"]) { $1 },
            qmlPlatform: "wayland")
        defer { apps.stop() }
        var frames: [String] = []
        for (round, id) in appIDs.enumerated() {
            try Wait.require("\(id)'s window in sway", timeout: 15) {
                ((try? sway.message(["-t", "get_tree"])) ?? "").contains("\"app_id\": \"\(id)\"")
            }
            _ = try sway.message(["[app_id=\"\(id)\"] focus"])
            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:true"])
            try apps.waitAll("will-show", count: round + 1)
            // squeekboard's strip on a 1280x800 output: the outermost 400 px (on every stack, as
            // SqueekboardServiceTests finds).
            frames.append("0,400 1280x400")
            try Wait.require("the QML file's keyboardRectangle (\(apps.qml.log))", timeout: 20) {
                InstalledApps.lines(apps.qml.log, "keyboardRectangle").count >= 2 * round + 1
            }
            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:false"])
            try apps.waitAll("did-hide", count: round + 1)
            try Wait.require("the QML file's keyboardRectangle emptied (\(apps.qml.log))", timeout: 20) {
                InstalledApps.lines(apps.qml.log, "keyboardRectangle").count >= 2 * round + 2
            }
        }
        apps.check(frames: frames)
        print("\(stack), headless sway with squeekboard: \(String(format: "%.1f s", Date().timeIntervalSince(start)))")
    }
}

extension InstalledScenarios {
    static let extensionUUID = "keyboard-adapter@keyboardadapter.org"

    /// Headless GNOME Shell from `stack`'s system, the package's extension (installed system-wide
    /// by kbwatch's package) enabled with `gnome-extensions enable`: the installed kbwatch's
    /// `--doctor` says the system's is in use, and its watcher hears the shell's keyboard open and
    /// close at the keyboard actor's extents as the extension reports them.
    static func gnomeShell(on stack: Stack) throws {
        let start = Date()
        let gnome = try HeadlessGnomeShell(stack: stack, withExtension: false)
        defer { gnome.stop() }
        func inSession(_ command: [String]) throws -> (String, [String]) {
            try Userland.command(
                ["/usr/bin/env", "-i"] + gnome.environment + command, on: stack, as: gnome.user,
                accounts: gnome.runtime.path)
        }
        let (enable, enableArguments) = try inSession(["gnome-extensions", "enable", extensionUUID])
        let enabled = try Shell.run(enable, enableArguments)
        #expect(enabled.status == 0, "gnome-extensions enable: \(enabled.output)")
        try Wait.require("the shell to run the extension", timeout: 20) {
            (try? gnome.eval("Main.extensionManager.lookup('\(extensionUUID)')?.state")) == "1"
        }
        let (doctor, doctorArguments) = try inSession(["/usr/bin/kbwatch", "--doctor"])
        let said = try Shell.run(doctor, doctorArguments)
        print("\(stack): kbwatch --doctor:\n\(said.output)")
        let line = "extension in use: the system's (/usr/share/gnome-shell/extensions/\(extensionUUID), release "
        #expect(said.output.contains(line), "\(said.output)")
        #expect(said.output.contains("kbwatch would use: gnome"), "\(said.output)")

        // Opened first: a watcher started then reports it up at once, with no wait for its start.
        _ = try gnome.eval("Main.keyboard.open(Main.layoutManager.primaryIndex)")
        try Wait.require("the shell's keyboard open", timeout: 10) { gnome.keyboardVisible == true }
        let (watch, watchArguments) = try inSession(["/usr/bin/kbwatch", "--json"])
        let watcher = try WatchedProcess(watch, watchArguments)
        defer { watcher.stop() }
        func event(_ name: String) -> [String: Any]? {
            let line = watcher.lines.first(from: 0, timeout: 10) { $0.contains(#""\#(name)""#) }
            return line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.text.utf8)) as? [String: Any] }
        }
        let shown = event("didShow")
        let frame = (shown?["endFrame"] as? [String: Any]).map { frame in
            ["x", "y", "width", "height"].map { (frame[$0] as? Int).map(String.init) ?? "?" }
        }
        let printed = frame.map { "\($0[0]),\($0[1]) \($0[2])x\($0[3])" }
        #expect(printed == (try gnome.keyboardExtents()), "didShow: \(watcher.lines.all.map(\.text))")
        #expect(shown?["geometry"] as? String == "reported", "didShow: \(watcher.lines.all.map(\.text))")
        _ = try gnome.eval("Main.keyboard.close()")
        #expect(event("didHide") != nil, "no didHide: \(watcher.lines.all.map(\.text)) \(watcher.errors)")
        print(
            "\(stack), GNOME Shell \(stack.gnomeShellMajor): \(String(format: "%.1f s", Date().timeIntervalSince(start)))"
        )
    }
}
