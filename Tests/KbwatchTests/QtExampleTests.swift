import Foundation
import TestSupport
import Testing

/// The Qt 6 QML chat screen (`Examples/qt`, on the KeyboardAdapter QML module of
/// `qt-keyboard-adapter`, built beside it; fed by the session service), built with CMake as its
/// main.cpp says, then run headless on X11 against xvkbd with the checks of the
/// other service examples (see `ExampleBar`), and on sway with squeekboard
/// (`ExampleSwayWorld.followsSqueekboard`), in pixels too (`ExamplePixels`).
@Suite("Qt example: kbchat")
struct QtExampleTests {
    static let source = SchemaValidator.repository.appendingPathComponent("Examples/qt").path
    /// The middle column of the window `ExampleBar.window` places at x 240, 800 wide.
    static let middleColumn = 240 + 800 / 2

    /// What building the example came to.
    enum Build: Sendable {
        /// The program, and the compiler's and CMake's warnings (there must be none).
        case built(program: String, warnings: [String])
        /// Qt's development files are missing: a skip (a failure under CI).
        case missing(String)
        /// Anything else: a failure.
        case failed(String)
    }

    /// Built once per test process, for every test here, in the process's scratch directory.
    static let build: Build = {
        let directory: String
        do { directory = try ScratchDirectory.path("kbchat-build") } catch { return .failed("\(error)") }
        switch CMake.build(source, in: directory) {
        case .built(let warnings): return .built(program: directory + "/kbchat", warnings: warnings)
        case .qtMissing: return .missing("Qt 6's development files are missing (qt6-base-dev, qt6-declarative-dev)")
        case .failed(let reason): return .failed(reason)
        }
    }()

    /// The QML modules Main.qml imports, under Qt's QML directory, and the packages that hold them.
    static let qmlModules = [
        ("QtQuick", "qml6-module-qtquick"), ("QtQuick/Window", "qml6-module-qtquick-window"),
        ("QtQuick/Controls", "qml6-module-qtquick-controls"), ("QtQuick/Layouts", "qml6-module-qtquick-layouts"),
        ("QtQuick/Templates", "qml6-module-qtquick-templates"),
        ("QtQml/WorkerScript", "qml6-module-qtqml-workerscript"),
    ]

    /// The example's program, built; nil when the test is skipped (no CMake, no C++ compiler, no
    /// Qt 6 development files or QML modules, which under CI is a failure).
    static func program() throws -> String? {
        guard try Programs.ready(["cmake", "c++", "qtpaths6"]) else { return nil }
        let query = try Programs.run("qtpaths6", ["--query", "QT_INSTALL_QML"])
        let qml = query.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let missing = qmlModules.filter { !FileManager.default.fileExists(atPath: "\(qml)/\($0.0)/qmldir") }
        guard missing.isEmpty else {
            try Programs.skip("QML modules are missing: \(missing.map(\.1).joined(separator: ", "))")
            return nil
        }
        switch build {
        case .built(let program, let warnings):
            #expect(warnings.isEmpty, "warnings building Examples/qt:\n\(warnings.joined(separator: "\n"))")
            return program
        case .missing(let reason):
            try Programs.skip(reason)
            return nil
        case .failed(let reason):
            throw TestFailure(reason)
        }
    }

    @Test(
        "The module starts the session service, the bar follows xvkbd on screen, survives the service's death, and the service ends once kbchat has"
    )
    func service() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", "dbus-send"]),
            let program = try Self.program()
        else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        // No window manager: the window's content is where --position puts it, its bottom at 640.
        try ExampleBar.followsKeyboardThroughService(
            in: world,
            measure: { _ in
                let pixels = try ExamplePixels.x11(display: world.session.display, column: Self.middleColumn)
                return (ExampleBar.bottom, pixels)
            },
            start: {
                try world.session.start(
                    program, ExampleBar.window,
                    environment: world.environment.merging(["QT_QPA_PLATFORM": "xcb"]) { $1 })
            })
    }

    @Test(
        "sway with squeekboard (Qt's Wayland platform): the bar ends on squeekboard's top edge on screen, follows it when the output changes, survives the service's restart, drops back on hide"
    )
    func sway() throws {
        guard try Programs.ready(["swaymsg", "dbus-daemon", "dbus-send", "grim"]),
            try Userland.ready(.debian12, ["sway", "squeekboard"]), let program = try Self.program()
        else { return }
        let world = try ExampleSwayWorld()
        defer { world.stop() }
        #expect(try world.servicePID() == nil, "no service before the app")
        let app = try world.sway.startClient(
            [program],
            environment: ["DBUS_SESSION_BUS_ADDRESS": world.bus.address, "QT_QPA_PLATFORM": "wayland"],
            asTestUser: false)
        defer { print("kbchat on sway said:\n\(app.log)") }
        try Wait.require("the app to subscribe and fill the output; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") && ExampleBar.barBottoms(app.log).last == ExampleSwayWorld.outputHeight
                || !app.isRunning
        }
        try world.followsSqueekboard(app)
    }

    @Test(
        "KWin 6 with maliit-keyboard (Debian 13): the keyboard over the window, the bar ends on its top edge, survives the service's restart, drops back on hide",
        arguments: [Stack.debian13])
    func kwin(stack: Stack) throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(stack, KWinTests.sessionPrograms),
            let program = try Self.program()
        else { return }
        // A maximized window with no title bar fills the output, as a chat screen on a phone does.
        let kwin = try HeadlessKWin(stack: stack, borderlessMaximized: true)
        defer { kwin.stop() }
        let servicePID = {
            let reply = try kwin.run([
                "dbus-send", "--bus=\(kwin.busAddress)", "--print-reply", "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                "string:\(ExampleBar.service)",
            ])
            return reply.status == 0
                ? reply.output.split(separator: " ").last.flatMap {
                    Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
                } : nil
        }
        // The session service, started as the session's user (this bus activates nothing).
        var service = try kwin.watch(["--serve"])
        defer { service.stop() }
        try Wait.require("the service's name on the bus", timeout: 15) { (try? servicePID()) != nil }
        // Undecorated, as on Plasma Mobile: Qt's own decoration would put a 3 px border below the
        // content (which the app allows for: its bar then ends 3 px above the output's edge).
        let app = try kwin.launch(
            program, variables: ["QT_QPA_PLATFORM=wayland", "QT_WAYLAND_DISABLE_WINDOWDECORATION=1"])
        defer { print("kbchat on KWin said:\n\(app.log)") }
        try Wait.require("the app to subscribe and fill the output; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") && ExampleBar.barBottoms(app.log).last == 800 || !app.isRunning
        }
        let first = try #require(try servicePID(), "the service runs")

        // KWin lays the keyboard over the window: the bar is lifted by the part it covers.
        try kwin.forceActivate()
        try kwin.waitForVisible(true)
        var top = 0
        try Wait.require("maliit's rectangle; KWin said:\n\(kwin.kwin.log.suffix(2000))", timeout: 10) {
            guard let rectangle = kwin.maliitRectangle?.split(separator: " ").compactMap({ Int($0) }),
                rectangle.count == 4
            else { return false }
            top = rectangle[1]
            return ExampleBar.barBottoms(app.log).last == top
        }
        try ExampleBar.expectBar(app, at: top, "maliit shown")
        // KWin may resize the window to the keyboard's edge before the service's event arrives.
        try Wait.require("the willShow event; the app said:\n\(app.log)", timeout: 10) {
            ExampleBar.said(app, "willShow KWin virtual keyboard") || !app.isRunning
        }

        // Killed, and another started at once, as a user unit's restart does.
        kill(first, SIGKILL)
        service = try kwin.watch(["--serve"])
        try Wait.require("the app to subscribe again; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.times(app, said: "subscribed") == 2 || !app.isRunning
        }
        #expect(ExampleBar.said(app, "service gone"))
        try ExampleBar.expectBar(app, at: top, "maliit, from the new service")
        #expect(try servicePID() != first, "a new service")

        try kwin.deactivate()
        try kwin.waitForVisible(false)
        try ExampleBar.expectBar(app, at: 800, "maliit hidden")
        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "the app ends cleanly on SIGTERM")
    }

    @Test("bad options: exit 2 with the usage; --help: exit 0")
    func options() throws {
        guard let program = try Self.program() else { return }
        // Values are read before Qt starts, so without a display; what Qt leaves over is read after,
        // on Qt's display-less platform.
        let environment: [String: String?] = ["DISPLAY": nil, "WAYLAND_DISPLAY": nil, "QT_QPA_PLATFORM": "offscreen"]
        for bad in [
            ["--size", "800"], ["--position", "1,2,3"], ["--size"], ["--colour", "red"], ["--size", "0x10"], ["extra"],
        ] {
            let result = try Programs.run(program, bad, environment: environment)
            #expect(result.status == 2, "\(bad)")
        }
        let help = try Programs.run(program, ["--help"], environment: environment)
        #expect(help.status == 0 && help.output.hasPrefix("usage: kbchat [--position X,Y] [--size WxH]"))
    }
}
