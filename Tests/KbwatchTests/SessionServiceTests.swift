import Foundation
import TestSupport
import Testing

/// The session service (`kbwatch --serve`) on a real session bus, watching xvkbd on Xvfb with
/// openbox, and its clients (`kbwatch --from-service`, GDBus from Python).
@Suite("kbwatch --serve: one watcher for the session")
struct SessionServiceTests {
    /// An X session with openbox, a private session bus whose activation directory holds the
    /// service's file, and two windows: 4242's focused, 4343's not.
    final class World {
        let session: X11Session
        let bus: SessionBus
        let apps: XTestClient
        let serviceDirectory: String

        init(idleExit: String = "1") throws {
            session = try X11Session()
            try session.startWindowManager()
            serviceDirectory = session.directory + "/services"
            try FileManager.default.createDirectory(atPath: serviceDirectory, withIntermediateDirectories: true)
            try
                "[D-BUS Service]\nName=org.keyboardadapter.Watcher\nExec=\(Kbwatch.path) --serve --idle-exit \(idleExit)\n"
                .write(
                    toFile: serviceDirectory + "/org.keyboardadapter.Watcher.service", atomically: true, encoding: .utf8
                )
            bus = try SessionBus(
                directory: session.directory, home: session.directory + "/home", serviceDirectory: serviceDirectory)
            try bus.setActivationEnvironment(["DISPLAY": session.display, "HOME": session.directory + "/home"])
            apps = try XTestClient.connect(session.display)
            let mine = apps.createWindow(
                x: 100, y: 100, width: 300, height: 200, classBytes: Array("app\0App\0".utf8),
                titleBytes: Array("this app".utf8))
            apps.setCardinals(mine, "_NET_WM_PID", [4242])
            let theirs = apps.createWindow(
                x: 500, y: 100, width: 300, height: 200, classBytes: Array("other\0Other\0".utf8),
                titleBytes: Array("another app".utf8))
            apps.setCardinals(theirs, "_NET_WM_PID", [4343])
            try session.activate(theirs, readBy: apps)
            try session.activate(mine, readBy: apps)
        }

        var environment: [String: String?] {
            session.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        }

        func stop() {
            bus.stop()
            session.stop()
        }
    }

    static let programs = ["Xvfb", "openbox", "xvkbd", "dbus-daemon", "dbus-send", "xdotool", "xwininfo"]

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
        let mine = try Kbwatch.start(["--json", "--from-service", "--pid", "4242"], environment: env)
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let theirs = try Kbwatch.start(["--json", "--from-service", "--pid", "4343"], environment: env)
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
        keyboard.stop()
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
}
