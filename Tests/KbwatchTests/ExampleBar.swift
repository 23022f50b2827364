import Foundation
import TestSupport
import Testing

/// What the bar examples (`Examples/python/kbbar.py`, `Examples/c/kbbar.c`) are checked by, on
/// Xvfb with xvkbd: their window's client area is 800x600 at 240,40, so its bottom edge is at 640,
/// and the bar must end exactly on the keyboard's top edge as `xwininfo -id` reports it.
enum ExampleBar {
    /// The window's command-line options, the same for every example.
    static let window = ["--position", "240,40", "--size", "800x600"]
    /// The window's bottom edge on screen.
    static let bottom = 640
    /// The session service's bus name.
    static let service = "org.keyboardadapter.Watcher"

    /// How many of the lines `app` printed so far are `line` (the first line too).
    static func times(_ app: ChildProcess, said line: String) -> Int {
        app.log.split(separator: "\n", omittingEmptySubsequences: false).count { $0 == line }
    }

    /// Whether `app` has printed `line`.
    static func said(_ app: ChildProcess, _ line: String) -> Bool { times(app, said: line) > 0 }

    /// What `app` printed after the last `line`, or all of it before any.
    static func printed(_ app: ChildProcess, since line: String) -> String {
        let lines = app.log.split(separator: "\n", omittingEmptySubsequences: false)
        guard let last = lines.lastIndex(where: { $0 == line }) else { return app.log }
        return lines[(last + 1)...].joined(separator: "\n")
    }

    /// The bar bottoms an example has printed so far (`bar bottom Y inset N` lines).
    static func barBottoms(_ log: String) -> [Int] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("bar bottom ") else { return nil }
            return Int(line.dropFirst("bar bottom ".count).prefix { $0 != " " })
        }
    }

    /// An X session (Xvfb, no window manager) with a private session bus whose activation
    /// directory holds the service's file, as an installed kbwatch has it: the bus starts
    /// `kbwatch --serve --idle-exit 5` on the first call to it.
    final class ServiceWorld {
        let session: X11Session
        let bus: SessionBus

        init() throws {
            session = try X11Session()
            let services = session.directory + "/services"
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=\(ExampleBar.service)\nExec=\(Kbwatch.path) --serve --idle-exit 5\n".write(
                toFile: services + "/\(ExampleBar.service).service", atomically: true, encoding: .utf8)
            bus = try SessionBus(
                directory: session.directory, home: session.directory + "/home", serviceDirectory: services)
            try bus.setActivationEnvironment(["DISPLAY": session.display, "HOME": session.directory + "/home"])
        }

        /// The session's environment with the private bus as the session bus.
        var environment: [String: String?] { ["DBUS_SESSION_BUS_ADDRESS": bus.address] }

        /// The pid of the service's process, from the bus; nil while nobody owns the name.
        func servicePID() throws -> Int32? {
            try bus.hasOwner(ExampleBar.service) ? bus.pid(of: ExampleBar.service) : nil
        }

        func stop() {
            bus.stop()
            session.stop()
        }
    }

    /// Checks where the bar ends on screen in pixels: given the bottom edge the app reported and
    /// the step, throws or records an issue when the screen shows otherwise.
    typealias PixelCheck = (_ bottom: Int, _ step: String) throws -> Void

    /// Waits until the last bar bottom `app` printed is `bottom` (or it ended), expects it, and
    /// then has `pixels` look at the screen.
    static func expectBar(_ app: ChildProcess, at bottom: Int, _ step: String, pixels: PixelCheck? = nil) throws {
        try Wait.require("the bar bottom at \(bottom) (\(step)); the app said:\n\(app.log)", timeout: 15) {
            barBottoms(app.log).last == bottom || !app.isRunning
        }
        #expect(barBottoms(app.log).last == bottom, "\(step)")
        try pixels?(bottom, step)
    }

    /// The checks every example passes, its window alone on `session` at first, its content's
    /// bottom edge at `bottom`: xvkbd shown over the window's bottom rows (the bar ends on its top
    /// edge), moved up to 380 (the bar follows), `whileUp` (with xvkbd's window), hidden (the bar
    /// is back at the bottom); every report is a laid-out bar, its bottom the window's bottom minus
    /// the inset; `pixels` checks the screen at each step.
    static func followsKeyboard(
        _ app: ChildProcess, on session: X11Session, bottom: Int = ExampleBar.bottom, pixels: PixelCheck? = nil,
        whileUp: (_ keyboard: UInt, _ top: Int) throws -> Void = { _, _ in }
    ) throws {
        try expectBar(app, at: bottom, "the window alone", pixels: pixels)

        // Over the whole width of the screen.
        try session.start("xvkbd", ["-geometry", "1280x220+0+490"])
        let keyboard = try session.waitForWindow(["--class", "XVkbd"], what: "xvkbd's window")
        let shown = try #require(try session.xwininfo(keyboard))
        #expect(shown.y < bottom && shown.y + shown.height > bottom, "xvkbd covers the window's bottom: \(shown)")
        try expectBar(app, at: shown.y, "xvkbd shown", pixels: pixels)

        try session.xdotool("windowmove", String(keyboard), "0", "380")
        let moved = try #require(try session.xwininfo(keyboard))
        #expect(moved.y == 380)
        try expectBar(app, at: moved.y, "xvkbd moved up", pixels: pixels)
        try whileUp(keyboard, moved.y)

        try session.xdotool("windowunmap", String(keyboard))
        try expectBar(app, at: bottom, "xvkbd hidden", pixels: pixels)
        #expect(app.log.contains("willShow xvkbd") && app.log.contains("didHide xvkbd"), "\(app.log)")
        let reports = app.log.split(separator: "\n").filter { $0.hasPrefix("bar bottom ") }
        for report in reports {
            let numbers = report.split(separator: " ").compactMap { Int($0) }
            #expect(numbers.count == 2 && numbers[0] + numbers[1] == bottom, "\(report)")
        }
    }

    /// The checks of an example that uses the session service (`app`, started by `start` on the
    /// world's session with its bus): its Subscribe starts the service (bus activation); the bar
    /// follows xvkbd as `followsKeyboard` checks; a service killed while xvkbd is up is noticed (its
    /// keyboards forgotten, the bar back at the bottom) and the app subscribes again, which starts a
    /// new service whose GetState or events put the bar back above xvkbd; SIGTERM ends the app
    /// cleanly, and the service, left without subscribers, ends once idle. `measure` gives, once
    /// the app runs, its content's bottom edge and how to check the screen (`followsKeyboard`'s).
    static func followsKeyboardThroughService(
        in world: ServiceWorld,
        measure: (ChildProcess) throws -> (bottom: Int, pixels: PixelCheck?) = { _ in (ExampleBar.bottom, nil) },
        start: () throws -> ChildProcess
    ) throws {
        #expect(try world.servicePID() == nil, "no service before the app")
        let app = try start()
        defer { print("the app on \(world.session.display) said:\n\(app.log)") }
        let (bottom, pixels) = try measure(app)
        try Wait.require("the app to subscribe; it said:\n\(app.log)", timeout: 30) {
            said(app, "subscribed") || !app.isRunning
        }
        let first = try #require(try world.servicePID(), "the app's Subscribe started the service")
        let program = try? String(contentsOfFile: "/proc/\(first)/comm", encoding: .utf8)
        #expect(program == "kbwatch\n", "the service is kbwatch --serve: \(program ?? "gone")")
        #expect(ChildProcess.descendants(of: app.pid).isEmpty, "the app runs no kbwatch of its own")

        try followsKeyboard(app, on: world.session, bottom: bottom, pixels: pixels) { _, top in
            let reports = barBottoms(app.log).count
            kill(first, SIGKILL)
            try Wait.require("the app to subscribe again; it said:\n\(app.log)", timeout: 30) {
                times(app, said: "subscribed") == 2 || !app.isRunning
            }
            try expectBar(app, at: top, "xvkbd, from the new service", pixels: pixels)
            let since = Array(barBottoms(app.log).dropFirst(reports))
            #expect(since.first == bottom, "the keyboards forgotten while no service ran: \(since)")
            #expect(said(app, "service gone"))
            let second = try #require(try world.servicePID())
            #expect(second != first, "a new service")
        }

        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "the app ends cleanly on SIGTERM")
        try Wait.require("the service to end once idle (idle exit 5 s) after its subscriber left", timeout: 20) {
            (try? world.bus.hasOwner(service)) == false
        }
    }
}
