import Foundation
import TestSupport
import Testing

/// The Qt 6 QML module and C++ class (`qt-keyboard-adapter`), built and installed with CMake into
/// a scratch prefix as a package installs it (any compiler or CMake warning fails), its unit tests
/// run by ctest (the Verdict bookkeeping): a QML file run by Qt's `qml` tool with
/// `import KeyboardAdapter`, and a widget app on `KeyboardAdapter::Watcher`, see the keyboard
/// through bus activation of the repository's kbwatch; an app finds the CMake package
/// (`find_package(KeyboardAdapterQt)`).
@Suite("Qt module: import KeyboardAdapter")
struct QtModuleTests {
    static let source = SchemaValidator.repository.appendingPathComponent("qt-keyboard-adapter").path
    /// Qt's QML runtime (qml-qt6).
    static let qmlTool = "/usr/lib/qt6/bin/qml"

    /// What building and installing the module came to.
    enum Build: Sendable {
        /// The installation prefix, and the compiler's and CMake's warnings (there must be none).
        case installed(prefix: String, warnings: [String])
        /// Qt's development files are missing: a skip (a failure under CI).
        case missing(String)
        /// Anything else: a failure.
        case failed(String)
    }

    /// Built and installed once per test process, in the process's scratch directory.
    static let build: Build = {
        let directory: String
        do { directory = try ScratchDirectory.path("qt-keyboard-adapter") } catch { return .failed("\(error)") }
        let prefix = directory + "/prefix"
        let warnings: [String]
        switch CMake.build(source, in: directory + "/build", options: ["-DCMAKE_INSTALL_PREFIX=\(prefix)"]) {
        case .built(let built): warnings = built
        case .qtMissing:
            return .missing(
                "Qt 6's development files are missing (qt6-base-dev, qt6-declarative-dev, qt6-declarative-dev-tools)")
        case .failed(let reason): return .failed(reason)
        }
        // The unit tests (the Verdict bookkeeping).
        let unit = try? Programs.run(
            "/bin/sh", ["-c", "exec ctest --test-dir \"$0\" --output-on-failure 2>&1", directory + "/build"],
            timeout: 120)
        guard let unit, unit.status == 0 else { return .failed("ctest:\n\(unit?.output ?? "did not finish")") }
        let install = CMake.run(["--install", directory + "/build"])
        guard install.status == 0 else { return .failed("cmake --install:\n\(install.output)") }
        return .installed(prefix: prefix, warnings: warnings)
    }()

    /// The installation prefix; nil when the test is skipped (no CMake, no C++ compiler, no Qt 6
    /// development files, which under CI is a failure).
    static func prefix() throws -> String? {
        guard try Programs.ready(["cmake", "c++"]) else { return nil }
        switch build {
        case .installed(let prefix, let warnings):
            #expect(warnings.isEmpty, "warnings building qt-keyboard-adapter:\n\(warnings.joined(separator: "\n"))")
            return prefix
        case .missing(let reason):
            try Programs.skip(reason)
            return nil
        case .failed(let reason):
            throw TestFailure(reason)
        }
    }

    /// The values an app printed (`keyboardRectangle X,Y WxH visible B`, the QML file's with
    /// `window WxH` after), each as its rectangle, whether a keyboard is up, and the window's size
    /// (empty when not printed).
    static func reports(_ log: String) -> [(rectangle: [Int], visible: Bool, window: String)] {
        log.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "keyboardRectangle ") else { return nil }
            let words = line[start.upperBound...].split(separator: " ")
            guard words.count >= 4, words[2] == "visible" else { return nil }
            let numbers = words[0].split(separator: ",") + words[1].split(separator: "x")
            let window = words.count == 6 && words[4] == "window" ? String(words[5]) : ""
            return (numbers.compactMap { Int($0) }, words[3] == "true", window)
        }
    }

    /// xvkbd shown in the lower half of the screen of `world`, whose openbox keeps it undecorated
    /// and above: `app`, full screen, reports it as its keyboardRectangle; hidden, it reports an
    /// empty one.
    static func followsXvkbd(_ app: ChildProcess, in world: ExampleBar.ServiceWorld) throws {
        try world.session.start("xvkbd", ["-geometry", "600x200+340+560"])
        let keyboard = try world.session.waitForWindow(["--class", "XVkbd"], what: "xvkbd's window")
        var frame: [Int] = []
        try Wait.require("keyboardRectangle to be xvkbd's frame; the app said:\n\(app.log)", timeout: 15) {
            guard let covered = try? world.session.xwininfoCovered(keyboard) else { return false }
            frame = [covered.x, covered.y, covered.width, covered.height]
            guard let last = reports(app.log).last else { return false }
            return last.rectangle == frame && last.visible
        }
        #expect(frame[1] + frame[3] > world.session.height / 2, "xvkbd in the screen's lower half: \(frame)")

        try world.session.xdotool("windowunmap", String(keyboard))
        try Wait.require("keyboardRectangle empty after xvkbd hid; the app said:\n\(app.log)", timeout: 15) {
            guard let last = reports(app.log).last else { return false }
            return last.rectangle == [0, 0, 0, 0] && !last.visible
        }
        #expect(app.isRunning, "the app still runs")
    }

    /// A world whose bus starts the repository's kbwatch, with openbox; none runs it yet.
    static func world() throws -> ExampleBar.ServiceWorld {
        let world = try ExampleBar.ServiceWorld()
        try world.session.startWindowManager(config: X11Session.keyboardsAboveConfig)
        #expect(try world.servicePID() == nil, "no service before the app")
        return world
    }

    /// Expects that the service runs, and is kbwatch: the app's Subscribe started it.
    static func expectActivated(_ world: ExampleBar.ServiceWorld) throws {
        let service = try #require(try world.servicePID(), "the module's Subscribe started the service")
        let program = try? String(contentsOfFile: "/proc/\(service)/comm", encoding: .utf8)
        #expect(program == "kbwatch\n", "the service is kbwatch --serve: \(program ?? "gone")")
    }

    @Test(
        "qml with import KeyboardAdapter: keyboardRectangle is xvkbd's frame while it is up and empty after it hides, through bus activation of kbwatch on Xvfb with openbox"
    )
    func qmlTool() throws {
        guard
            try Programs.ready([
                "Xvfb", "openbox", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", "dbus-send", Self.qmlTool,
            ]),
            let prefix = try Self.prefix()
        else { return }
        let file = Self.source + "/tests/rectangle.qml"
        let world = try Self.world()
        defer { world.stop() }

        // Full screen: the window's coordinates are the screen's, so the rectangle is the frame.
        let app = try world.session.start(
            Self.qmlTool, [file],
            environment: world.environment.merging([
                "QT_QPA_PLATFORM": "xcb", "QML2_IMPORT_PATH": prefix + "/lib/qt6/qml",
            ]) { $1 })
        defer { print("qml said:\n\(app.log)") }
        let screen = "\(world.session.width)x\(world.session.height)"
        try Wait.require("the QML file to subscribe, full screen; it said:\n\(app.log)", timeout: 30) {
            app.log.contains("subscribed") && Self.reports(app.log).last?.window == screen || !app.isRunning
        }
        try Self.expectActivated(world)
        #expect(Self.reports(app.log).last?.rectangle == [0, 0, 0, 0], "no keyboard yet")

        // A stranger's signals addressed to the app: only the bus and the service's connection
        // are believed (a believed one would print FORGED, service gone, or a rectangle).
        let (path, interface) = ("/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2")
        let reported = Self.reports(app.log).count
        for signal: ForgedSignals.Signal in [
            .nameTaken(ExampleBar.service),
            .variant(path: path, interface: interface, member: "Verdict", value: "(uint32 1, {'local': <true>})"),
            .update(path: path, interface: interface, member: "SubscriberEvent", name: "FORGED"),
            .update(path: path, interface: interface, member: "Event", name: "FORGED"),
            .nameLost(ExampleBar.service),
        ] {
            #expect(try ForgedSignals.send(signal, toConnectionsOf: app.pid, bus: world.bus.address) >= 1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!app.log.contains("FORGED") && !app.log.contains("service gone"), "\(app.log)")
        #expect(Self.reports(app.log).count == reported, "\(app.log)")

        try Self.followsXvkbd(app, in: world)
        // The rectangle empties at willHide; didHide is printed after it, a moment later on a busy machine.
        try Wait.require("didHide; the app said:\n\(app.log)", timeout: 10) { app.log.contains("didHide xvkbd") }
        #expect(app.log.contains("willShow xvkbd"), "\(app.log)")
    }

    @Test(
        "a service the bus cannot start: the QML file hears failed with the bus's error and runs on; a kbwatch --serve started later is subscribed to"
    )
    func lateService() throws {
        guard
            try Programs.ready([
                "Xvfb", "openbox", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", Self.qmlTool,
            ]),
            let prefix = try Self.prefix()
        else { return }
        let world = try Self.world()
        defer { world.stop() }
        // The bus rereads its service directory: from now on it cannot start the service.
        try "[D-BUS Service]\nName=\(ExampleBar.service)\nExec=/bin/false\n".write(
            toFile: world.session.directory + "/services/\(ExampleBar.service).service", atomically: true,
            encoding: .utf8)
        Thread.sleep(forTimeInterval: 0.5)
        let app = try world.session.start(
            Self.qmlTool, [Self.source + "/tests/rectangle.qml"],
            environment: world.environment.merging([
                "QT_QPA_PLATFORM": "xcb", "QML2_IMPORT_PATH": prefix + "/lib/qt6/qml",
            ]) { $1 })
        defer { print("qml said:\n\(app.log)") }
        try Wait.require("the QML file to hear that subscribing failed; it said:\n\(app.log)", timeout: 30) {
            app.log.contains("failed org.freedesktop.DBus.Error.Spawn") || !app.isRunning
        }
        #expect(!app.log.contains("subscribed"))

        let service = try world.session.start(Kbwatch.path, ["--serve", "--stay"], environment: world.environment)
        defer { service.stop() }
        try Wait.require("the QML file to subscribe to the service started by hand; it said:\n\(app.log)", timeout: 30)
        {
            app.log.contains("subscribed") || !app.isRunning
        }
        try Self.followsXvkbd(app, in: world)
    }

    @Test(
        "a Qt Widgets app on KeyboardAdapter::Watcher, built on the installed package: keyboardRectangle is xvkbd's frame while it is up and empty after it hides"
    )
    func widgets() throws {
        guard try Programs.ready(["Xvfb", "openbox", "xdotool", "xwininfo", "xvkbd", "dbus-daemon"]),
            let prefix = try Self.prefix()
        else { return }
        let directory = try ScratchDirectory.path("kbwidgets")
        let build = CMake.build(
            Self.source + "/examples/widgets", in: directory, options: ["-DCMAKE_PREFIX_PATH=\(prefix)"])
        guard case .built(let warnings) = build else { throw TestFailure("kbwidgets: \(build)") }
        #expect(warnings.isEmpty, "\(warnings)")

        let world = try Self.world()
        defer { world.stop() }
        let app = try world.session.start(
            directory + "/kbwidgets", environment: world.environment.merging(["QT_QPA_PLATFORM": "xcb"]) { $1 })
        defer { print("kbwidgets said:\n\(app.log)") }
        try Wait.require("kbwidgets to subscribe; it said:\n\(app.log)", timeout: 30) {
            app.log.contains("subscribed") || !app.isRunning
        }
        try Self.expectActivated(world)
        try Self.followsXvkbd(app, in: world)
    }

    @Test("an app finds the installed CMake package: Examples/qt built with find_package(KeyboardAdapterQt)")
    func cmakePackage() throws {
        guard try Programs.ready(["qtpaths6"]), let prefix = try Self.prefix() else { return }
        let directory = try ScratchDirectory.path("kbchat-on-package")
        let examples = SchemaValidator.repository.appendingPathComponent("Examples/qt").path
        let build = CMake.build(examples, in: directory, options: ["-DCMAKE_PREFIX_PATH=\(prefix)"])
        guard case .built = build else { throw TestFailure("Examples/qt on the package: \(build)") }
        // The package's library, not a copy built beside the app.
        #expect(!FileManager.default.fileExists(atPath: directory + "/qt-keyboard-adapter"))
        let linked = try Programs.run("/bin/sh", ["-c", "readelf -d \"$0\"", directory + "/kbchat"])
        #expect(linked.output.contains("libkeyboard-adapter-qt6.so.1"), "\(linked.output)")
        let help = try Programs.run(
            directory + "/kbchat", ["--help"],
            environment: ["LD_LIBRARY_PATH": prefix + "/lib", "QT_QPA_PLATFORM": "offscreen"])
        #expect(help.status == 0 && help.output.hasPrefix("usage: kbchat"), "\(help.output)")
    }
}
