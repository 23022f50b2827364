import Foundation
import TestSupport
import Testing

/// The session service (`kbwatch --serve`) on a real session bus, watching xvkbd on Xvfb with
/// openbox, and its clients (`kbwatch --from-service`, GDBus from Python).
@Suite("kbwatch --serve: one watcher for the session")
struct SessionServiceTests {
    /// An X session with openbox, a private session bus whose activation directory holds the
    /// service's file, and two windows of two processes of this user (which a subscriber may
    /// name as its own): `mine`'s focused, `theirs`' not.
    final class World {
        let session: X11Session
        let bus: SessionBus
        let apps: XTestClient
        let serviceDirectory: String
        /// The processes that made the two windows (as the X server knows them).
        let mine: ChildProcess
        let theirs: ChildProcess
        /// `mine`'s window, focused.
        private(set) var mineWindow: UInt?

        /// With `stack`, the bus is that userland's dbus-daemon; `settle` is the service's
        /// `--settle` in milliseconds (its default where nil).
        init(idleExit: String = "1", settle: Int? = nil, stack: Stack = .debian12) throws {
            session = try X11Session()
            try session.startWindowManager()
            serviceDirectory = session.directory + "/services"
            try FileManager.default.createDirectory(atPath: serviceDirectory, withIntermediateDirectories: true)
            let exec = "\(Kbwatch.path) --serve --idle-exit \(idleExit)" + (settle.map { " --settle \($0)" } ?? "")
            try "[D-BUS Service]\nName=org.keyboardadapter.Watcher\nExec=\(exec)\n".write(
                toFile: serviceDirectory + "/org.keyboardadapter.Watcher.service", atomically: true, encoding: .utf8)
            bus = try SessionBus(
                directory: session.directory, home: session.directory + "/home", serviceDirectory: serviceDirectory,
                stack: stack)
            try bus.setActivationEnvironment(["DISPLAY": session.display, "HOME": session.directory + "/home"])
            apps = try XTestClient.connect(session.display)
            let (mine, mineWindow) = try session.startWindowProcess(title: "this app", instance: "app", x: 100, y: 100)
            let (theirs, theirsWindow) = try session.startWindowProcess(
                title: "another app", instance: "other", x: 500, y: 100)
            (self.mine, self.theirs) = (mine, theirs)
            try session.activate(theirsWindow, readBy: apps)
            try session.activate(mineWindow, readBy: apps)
            self.mineWindow = UInt(mineWindow)
        }

        var environment: [String: String?] {
            session.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        }

        func stop() {
            bus.stop()
            session.stop()
        }
    }

    static let programs = ["Xvfb", "openbox", "xvkbd", "xmessage", "dbus-daemon", "dbus-send", "xdotool", "xwininfo"]

    /// The JSON lines of a log, without their `time` fields.
    static func untimed(_ log: String) -> [String] {
        log.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            String($0).replacing(/"time":"[^"]*",/, with: "")
        }
    }

    @Test("two subscribers get every event, local for the focused window's pid only; the lines are kbwatch --json's")
    func twoSubscribers() throws {
        guard try Programs.ready(Self.programs) else { return }
        let world = try World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        // Activated by the first client.
        let mine = try Kbwatch.start(["--json", "--from-service", "--pid", String(world.mine.pid)], environment: env)
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let theirs = try Kbwatch.start(
            ["--json", "--from-service", "--pid", String(world.theirs.pid)], environment: env)
        let anyone = try Kbwatch.start(["--json", "--from-service"], environment: env)
        let direct = try Kbwatch.start(["--json", "--backend", "x11"], environment: env)
        let watchers = [mine, theirs, anyone, direct]
        Thread.sleep(forTimeInterval: 1)

        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        for watcher in watchers {
            try Wait.require("didShow (\(watcher.log))", timeout: 15) { watcher.log.contains(#""event":"didShow""#) }
        }
        try world.session.xdotool("search", "--sync", "--class", "xvkbd", "windowmove", "%@", "200", "550")
        for watcher in watchers {
            try Wait.require("didChangeFrame (\(watcher.log))", timeout: 15) {
                watcher.log.contains(#""event":"didChangeFrame""#)
            }
        }
        // A subscriber that comes while the keyboard is up hears of it at once, at its frame.
        let late = try Kbwatch.start(["--json", "--from-service", "--pid", String(world.mine.pid)], environment: env)
        try Wait.require("the late subscriber's didShow (\(late.log))", timeout: 15) {
            late.log.contains(#""event":"didShow""#)
        }
        let moved = try #require(
            direct.log.split(separator: "\n").last { $0.contains(#""event":"didChangeFrame""#) }?
                .firstMatch(of: /"endFrame":\{[^}]*\}/).map { String($0.output) })
        let lateShow = late.log.split(separator: "\n").first { $0.contains(#""event":"didShow""#) } ?? ""
        #expect(lateShow.contains(moved) && lateShow.contains(#""local":true"#), "\(lateShow) vs \(moved)")
        late.signal(SIGINT)
        #expect(late.waitForExit(timeout: 5) == 0)
        // Hidden through the service (xvkbd has no service: the window manager iconifies it).
        let hide = try Kbwatch.run(["--from-service", "--hide"], environment: env)
        #expect(hide.status == 0, "\(hide.stderr)")
        defer { keyboard.stop() }
        for watcher in watchers {
            try Wait.require("didHide (\(watcher.log))", timeout: 15) { watcher.log.contains(#""event":"didHide""#) }
            watcher.signal(SIGINT)
            #expect(watcher.waitForExit(timeout: 5) == 0, "\(watcher.log)")
        }
        let events = Self.untimed(direct.log).map { $0.firstMatch(of: /"event":"(\w+)"/).map { String($0.1) } ?? "" }
        #expect(events == ["willShow", "didShow", "willChangeFrame", "didChangeFrame", "willHide", "didHide"])
        // The service's lines are those kbwatch prints watching itself, bar the time.
        #expect(Self.untimed(anyone.log) == Self.untimed(direct.log))
        #expect(
            Self.untimed(mine.log)
                == Self.untimed(direct.log).map { $0.replacing(#""local":null"#, with: #""local":true"#) })
        #expect(
            Self.untimed(theirs.log)
                == Self.untimed(direct.log).map { $0.replacing(#""local":null"#, with: #""local":false"#) })
    }

    @Test("activated by --state, it ends once idle; a second --serve refuses; a killed subscriber is forgotten")
    func activationAndIdle() throws {
        guard try Programs.ready(Self.programs) else { return }
        let world = try World(idleExit: "1")
        defer { world.stop() }
        let env = world.environment
        #expect(try !world.bus.hasOwner("org.keyboardadapter.Watcher"))
        let state = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env)
        #expect(state.status == 1, "\(state.stderr)")
        #expect(state.stdout.hasPrefix(#"{"schema":1,"visible":false,"keyboards":[]"#), "\(state.stdout)")
        #expect(try world.bus.hasOwner("org.keyboardadapter.Watcher"))

        let second = try Kbwatch.run(["--serve"], environment: env)
        #expect(second.status == 10 && second.stderr.contains("served already"), "\(second.stderr)")

        try Wait.require("the idle service to end", timeout: 10) {
            (try? world.bus.hasOwner("org.keyboardadapter.Watcher")) == false
        }
        // A subscriber keeps it up; killed, it is forgotten and the service ends once idle.
        let client = try Kbwatch.start(["--json", "--from-service"], environment: env)
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try world.bus.hasOwner("org.keyboardadapter.Watcher"), "a subscriber keeps the service up")
        client.signal(SIGKILL)
        try Wait.require("the service to forget the killed client and end", timeout: 10) {
            (try? world.bus.hasOwner("org.keyboardadapter.Watcher")) == false
        }

        // --show through the service: xvkbd has no service of its own, so it is refused, with the reason.
        let show = try Kbwatch.run(["--from-service", "--show"], environment: env)
        #expect(show.status == 7, "\(show.stderr)")
    }

    @Test("on sway with wvkbd: two subscribers by app id, local only while their window is focused")
    func swaySubscribers() throws {
        guard try Programs.ready(["swaymsg", "dbus-daemon", "dbus-send"]),
            try Userland.ready(.debian12, ["sway", "wvkbd-mobintl", "python3"])
        else { return }
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let keyboard = try sway.startWvkbd()
        defer { keyboard.stop() }
        var apps: [ChildProcess] = []
        for appID in [ToplevelOwnershipTests.first, ToplevelOwnershipTests.second] {
            let app = try sway.launchGTK(NamedWindowApp.script, name: appID + ".py", arguments: [appID])
            try Wait.require("\(appID) to be active", timeout: 15) { app.log.split(separator: "\n").last == "active" }
            apps.append(app)
        }
        let bus = try SessionBus(directory: sway.runtime.path, home: sway.runtime.home)
        defer { bus.stop() }
        let env = sway.clientEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        let service = try Kbwatch.start(["--serve", "--stay"], environment: env)
        defer { service.stop() }
        try bus.waitForName("org.keyboardadapter.Watcher")
        let clients = try [ToplevelOwnershipTests.first, ToplevelOwnershipTests.second].map {
            try Kbwatch.watch(["--json", "--from-service", "--app-id", $0], environment: env)
        }
        defer { clients.forEach { $0.stop() } }
        Thread.sleep(forTimeInterval: 1)
        var mark = 0
        for (app, appID) in zip(apps, [ToplevelOwnershipTests.first, ToplevelOwnershipTests.second]) {
            try sway.message(["[app_id=\"\(appID)\"] focus"])
            try Wait.require("\(appID) to be active", timeout: 10) { app.log.split(separator: "\n").last == "active" }
            Thread.sleep(forTimeInterval: 0.3)
            keyboard.signal(SIGUSR2)
            for client in clients { _ = try client.next("didShow", after: mark) }
            keyboard.signal(SIGUSR1)
            for client in clients { _ = try client.next("didHide", after: mark) }
            mark = clients.map(\.lines.count).min()!
        }
        func locals(_ client: WatchedProcess) -> [String] {
            client.lines.all.compactMap { try? JSONLine($0.text) }.map {
                "\($0.string("event") ?? "?") \(($0.values["local"] as? Bool).map(String.init) ?? "null")"
            }
        }
        func cycle(_ local: Bool) -> [String] {
            ["willShow", "didShow", "willHide", "didHide"].map { "\($0) \(local)" }
        }
        #expect(locals(clients[0]) == cycle(true) + cycle(false), "\(clients[0].errors)")
        #expect(locals(clients[1]) == cycle(false) + cycle(true), "\(clients[1].errors)")
    }

    @Test("progress frames and the state through the service print as kbwatch prints them watching itself")
    func progressAndState() throws {
        guard try Programs.ready(Self.programs) else { return }
        // Both settle a move for 400 ms, far beyond the 10 ms between its steps: on a busy machine
        // one of the two could otherwise see a pause as the end of the move that the other does not.
        let world = try World(idleExit: "30", settle: 400)
        defer { world.stop() }
        let env = world.environment
        let served = try Kbwatch.start(["--json", "--progress", "--from-service"], environment: env)
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let direct = try Kbwatch.start(
            ["--json", "--progress", "--backend", "x11", "--settle", "400"], environment: env)
        Thread.sleep(forTimeInterval: 1)
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        for watcher in [served, direct] {
            try Wait.require("didShow (\(watcher.log))", timeout: 15) { watcher.log.contains(#""event":"didShow""#) }
        }
        let window = try #require(
            direct.log.firstMatch(of: /"id":"x11:0x([0-9a-f]+)"/).flatMap { UInt($0.1, radix: 16) })
        let driver = try XTestClient.connect(world.session.display)
        // Steps closer together than the settle interval: one move, its frames in between.
        for step in 1...8 {
            driver.configure(window, x: 100 + step * 20, y: 500)
            Thread.sleep(forTimeInterval: 0.01)
        }
        for watcher in [served, direct] {
            try Wait.require("didChangeFrame (\(watcher.log))", timeout: 15) {
                watcher.log.contains(#""event":"didChangeFrame""#)
            }
        }
        // Each watcher times the frames as it received them: the durations are its own.
        func comparable(_ log: String) -> [String] {
            Self.untimed(log).map { $0.replacing(/"animationDuration":[0-9.]+/, with: "") }
        }
        #expect(comparable(direct.log).contains { $0.contains(#""event":"progress""#) }, "\(direct.log)")
        #expect(comparable(served.log) == comparable(direct.log))
        let state = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env)
        let own = try Kbwatch.run(["--state", "--json", "--backend", "x11"], environment: env)
        #expect(state.status == 0 && own.status == 0, "\(state.stderr) \(own.stderr)")
        #expect(state.stdout == own.stdout)
        let human = try Kbwatch.run(["--from-service", "--state"], environment: env)
        #expect(human.stdout.hasPrefix("xvkbd"), "\(human.stdout)")
    }

    /// A client that tries what hostile or broken clients do, through GDBus.
    static let hostileClient = #"""
        import os, subprocess, sys
        from gi.repository import Gio, GLib

        NAME, PATH, IFACE = "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2"
        address = sys.argv[1]

        def connect():
            return Gio.DBusConnection.new_for_address_sync(
                address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
                None, None)

        def call(bus, method, args, signature):
            try:
                bus.call_sync(NAME, PATH, IFACE, method, GLib.Variant(signature, args) if signature else None,
                              None, Gio.DBusCallFlags.NONE, 10000, None)
                return "ok"
            except GLib.Error as error:
                return Gio.DBusError.get_remote_error(error) or error.message

        bus = connect()
        print("wrong type", call(bus, "Subscribe", ("nonsense",), "(s)"), flush=True)
        print("wrong option type", call(bus, "Subscribe", ({"progress": GLib.Variant("s", "yes")},), "(a{sv})"), flush=True)
        print("many app ids", call(bus, "Subscribe", ({"app_ids": GLib.Variant("as", ["a"] * 100000)},), "(a{sv})"), flush=True)
        print("huge app id", call(bus, "Subscribe", ({"app_ids": GLib.Variant("as", ["x" * (1 << 20)])},), "(a{sv})"), flush=True)
        results = set(call(bus, "Subscribe", ({"progress": GLib.Variant("b", True)},), "(a{sv})") for _ in range(5000))
        print("5000 subscriptions from one connection", sorted(results), flush=True)
        connections = [connect() for _ in range(60)]
        answers = [call(c, "Subscribe", ({},), "(a{sv})") for c in connections]
        print("60 connections", answers.count("ok"), "ok,", answers.count("org.keyboardadapter.Watcher2.Error.LimitsExceeded"), "refused", flush=True)
        # This process has taken its share: another process still subscribes and asks.
        other = subprocess.run(
            [sys.argv[2], "--from-service", "--state", "--json"], capture_output=True, text=True,
            env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address))
        print(("another client while this one holds its share: %d %s" % (other.returncode, other.stderr.strip())).strip(), flush=True)
        for c in connections:
            c.close_sync(None)
        results = set(call(bus, "GetState", None, None) for _ in range(20000))
        print("20000 GetState", sorted(results), flush=True)
        """#

    @Test(
        "hostile clients: wrong types, huge arguments, 5000 subscriptions, 60 connections for one client's 20 places, 20000 calls, a stopped reader"
    )
    func hostileClients() throws {
        guard try Programs.ready(Self.programs + ["/usr/bin/python3"]) else { return }
        let world = try World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let service = try Kbwatch.start(
            ["--serve", "--stay", "--max-subscribers", "50", "--max-subscribers-per-client", "20"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let script = world.session.directory + "/hostile.py"
        try Self.hostileClient.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Programs.run("/usr/bin/python3", [script, world.bus.address, Kbwatch.path], timeout: 120)
        let lines = result.output.split(separator: "\n").map(String.init)
        let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
        #expect(lines.contains("wrong type \(invalid)"), "\(result.output)")
        #expect(lines.contains("wrong option type \(invalid)"), "\(result.output)")
        #expect(lines.contains("many app ids \(invalid)"), "\(result.output)")
        #expect(lines.contains("huge app id \(invalid)"), "\(result.output)")
        #expect(lines.contains("5000 subscriptions from one connection ['ok']"), "\(result.output)")
        // The script's own connection holds one of its process's 20 places; kbwatch, another
        // process, subscribes and is answered (no keyboard is up: exit 1).
        #expect(lines.contains("60 connections 19 ok, 41 refused"), "\(result.output)")
        #expect(lines.contains("another client while this one holds its share: 1"), "\(result.output)")
        #expect(lines.contains("20000 GetState ['ok']"), "\(result.output)")
        let afterCalls = ProcessUsage.sample(pid: service.pid)

        // A subscriber that stops reading (SIGSTOP) while the keyboard moves 100 times: the other
        // gets every move at once, and the service neither blocks nor grows without bound.
        let stopped = try Kbwatch.start(["--json", "--from-service"], environment: env)
        let reader = try Kbwatch.watch(["--json", "--from-service"], environment: env)
        defer { reader.stop() }
        Thread.sleep(forTimeInterval: 1)
        stopped.signal(SIGSTOP)
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        let shown = try reader.next("didShow", after: 0)
        let window = try #require(
            UInt(shown.object("keyboard").string("id")?.dropFirst("x11:0x".count) ?? "", radix: 16))
        let driver = try XTestClient.connect(world.session.display)
        for step in 0..<100 {
            // Apart by more than the settle interval: each move is an event of its own.
            driver.configure(window, x: step % 2 == 0 ? 300 : 100, y: 500)
            Thread.sleep(forTimeInterval: 0.06)
        }
        let seen = Wait.until(timeout: 30) {
            reader.lines.all.filter { $0.text.contains(#""event":"willChangeFrame""#) }.count >= 100
        }
        #expect(seen, "\(reader.lines.all.filter { $0.text.contains(#""event":"willChangeFrame""#) }.count) moves seen")
        keyboard.stop()
        _ = try reader.next("didHide", after: 0, timeout: 15)
        #expect(service.isRunning)
        let state = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env)
        #expect(state.status == 1, "the service answers: \(state.stderr)")
        if let before = afterCalls, let after = ProcessUsage.sample(pid: service.pid) {
            #expect(
                after.residentKiB - before.residentKiB < 8 * 1024,
                "resident \(before.residentKiB) -> \(after.residentKiB) KiB")
        }
        stopped.signal(SIGCONT)
        stopped.stop()
    }
}
