import Foundation
import TestSupport
import Testing

/// What docs/service.md says of who hears what from the session service, and of its activation,
/// each claim run: a real session bus activating kbwatch from a service file, Xvfb with openbox
/// and xvkbd.
@Suite("the session service as docs/service.md tells it")
struct ServiceDocumentationTests {
    /// An X session with openbox and a private session bus whose activation directory holds the
    /// service's file; the bus's activation environment names no display until a test gives it one.
    final class World {
        let session: X11Session
        let bus: SessionBus

        /// The bus's activation directory.
        let services: String

        /// With `installed` false the service's file is not there yet (``install()`` puts it).
        init(installed: Bool = true) throws {
            session = try X11Session()
            try session.startWindowManager()
            services = session.directory + "/services"
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            if installed { try Self.install(in: services) }
            bus = try SessionBus(
                directory: session.directory, home: session.directory + "/home", serviceDirectory: services,
                standardServiceDirectories: false)
        }

        /// Writes the service's file into the bus's activation directory.
        func install() throws { try Self.install(in: services) }

        private static func install(in services: String) throws {
            try "[D-BUS Service]\nName=org.keyboardadapter.Watcher\nExec=\(Kbwatch.path) --serve --idle-exit 1\n"
                .write(toFile: services + "/org.keyboardadapter.Watcher.service", atomically: true, encoding: .utf8)
        }

        var environment: [String: String?] {
            session.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        }

        /// Calls `method` of the interface with dbus-send, as any client would: its status, and its
        /// output and error together.
        func call(_ method: String, _ arguments: String...) throws -> (status: Int32, output: String) {
            try Programs.run(
                "/bin/sh",
                [
                    "-c", "exec dbus-send \"$@\" 2>&1", "sh", "--bus=\(bus.address)", "--print-reply",
                    "--dest=org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher",
                    "org.keyboardadapter.Watcher2.\(method)",
                ] + arguments)
        }

        func stop() {
            bus.stop()
            session.stop()
        }
    }

    static let programs = ["Xvfb", "openbox", "xvkbd", "dbus-daemon", "dbus-send", "/usr/bin/python3"]

    @Test(
        "started by a bus whose activation environment names no display, the service tells each caller why and how to fix it, and logs it; once fixed, the next call starts a service that watches"
    )
    func activationWithoutDisplay() throws {
        guard try Programs.ready(Self.programs) else { return }
        let world = try World()
        defer { world.stop() }
        // kbwatch, as a client: the error the service sent, exit 3 as for no display server.
        let state = try Kbwatch.run(["--from-service", "--state"], environment: world.environment)
        #expect(state.status == 3, "\(state.stderr)")
        for words in [
            "neither DISPLAY nor WAYLAND_DISPLAY", "dbus-update-activation-environment DISPLAY WAYLAND_DISPLAY",
            "systemctl --user import-environment", "call again",
        ] {
            #expect(state.stderr.contains(words), "no '\(words)' in: \(state.stderr)")
        }
        // Any client: the interface's error name with the same text.
        let raw = try world.call("GetState")
        #expect(raw.status != 0)
        #expect(raw.output.contains("org.keyboardadapter.Watcher2.Error.NoDisplay"), "\(raw.output)")
        #expect(raw.output.contains("dbus-update-activation-environment"), "\(raw.output)")
        // The bus's own log (the activated service's standard error).
        #expect(world.bus.process.log.contains("dbus-update-activation-environment"), "\(world.bus.process.log)")

        // The fix: the display given to the bus; the explaining service leaves within a second of
        // the last call, and the next call starts one that watches.
        try world.bus.setActivationEnvironment(["DISPLAY": world.session.display])
        try Wait.require("the explaining service to leave the name", timeout: 10) {
            (try? world.bus.hasOwner("org.keyboardadapter.Watcher")) == false
        }
        let fixed = try Kbwatch.run(["--from-service", "--state"], environment: world.environment)
        #expect(fixed.status == 1 && fixed.stderr.isEmpty, "\(fixed.stderr)")
        // On X11 nothing moves a window for a keyboard: asking to be left in place is refused.
        let inPlace = try world.call("LeaveWindowsInPlace", "boolean:true")
        #expect(
            inPlace.status != 0 && inPlace.output.contains("org.keyboardadapter.Watcher2.Error.Unsupported"),
            "\(inPlace.output)")
    }

    @Test(
        "a bus that knows no service: the client's error says to install kbwatch; the bus reads the service file installed later, and the next call starts the service"
    )
    func installedLater() throws {
        guard try Programs.ready(Self.programs) else { return }
        let world = try World(installed: false)
        defer { world.stop() }
        try world.bus.setActivationEnvironment(["DISPLAY": world.session.display])
        let before = try Kbwatch.run(["--from-service", "--state"], environment: world.environment)
        #expect(before.status == 10, "\(before.stderr)")
        #expect(before.stderr.contains("org.freedesktop.DBus.Error.ServiceUnknown"), "\(before.stderr)")
        #expect(before.stderr.contains("install kbwatch"), "\(before.stderr)")
        try world.install()
        // The bus rereads its configuration when a service directory changes (inotify).
        var after: Kbwatch.Result?
        try Wait.require("the bus to start the service installed after it", timeout: 10) {
            after = try? Kbwatch.run(["--from-service", "--state"], environment: world.environment)
            return after.map { $0.status != 10 } ?? false
        }
        #expect(after?.status == 1 && after?.stderr.isEmpty == true, "\(after?.stderr ?? "")")
    }

    /// A listener that subscribes to nothing but the interface's signals by a match rule on
    /// `interface='org.keyboardadapter.Watcher2'` from the service's name, printing each signal's
    /// member and the event it carries.
    static let listener = """
        import sys
        from gi.repository import Gio, GLib
        bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        def heard(connection, sender, path, interface, member, parameters):
            event = parameters[0].get("event", "") if member in ("Event", "SubscriberEvent") else ""
            print(member, event, flush=True)
        bus.signal_subscribe("org.keyboardadapter.Watcher", "org.keyboardadapter.Watcher2", None,
            "/org/keyboardadapter/Watcher", None, Gio.DBusSignalFlags.NONE, heard)
        print("listening", flush=True)
        GLib.MainLoop().run()
        """

    @Test(
        "anyone listening hears every Event without subscribing, by a match rule on the interface org.keyboardadapter.Watcher2; Verdicts and SubscriberEvents go to subscribers alone; a subscriber hears of the keyboard already up; Hide with none up says so"
    )
    func whoHearsWhat() throws {
        guard try Programs.ready(Self.programs) else { return }
        let world = try World()
        defer { world.stop() }
        try world.bus.setActivationEnvironment(["DISPLAY": world.session.display])
        let env = world.environment
        // A focused window of this user's, whose process the subscriber names as its own: the
        // service then sends it a Verdict (local true) before the show's first Event.
        let apps = try XTestClient.connect(world.session.display)
        let (app, window) = try world.session.startWindowProcess(title: "this app", instance: "app", x: 100, y: 100)
        try world.session.activate(window, readBy: apps)
        // The subscriber starts the service; the listener only listens.
        let subscriber = try Kbwatch.start(["--json", "--from-service", "--pid", String(app.pid)], environment: env)
        defer { subscriber.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let script = world.session.directory + "/listener.py"
        try Self.listener.write(toFile: script, atomically: true, encoding: .utf8)
        let listener = try world.session.start("/usr/bin/python3", [script, world.bus.address])
        try Wait.require("the listener to listen (\(listener.log))", timeout: 15) { listener.log.contains("listening") }

        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        try Wait.require("the listener's didShow (\(listener.log))", timeout: 15) {
            listener.log.contains("Event didShow")
        }
        try Wait.require("the subscriber's didShow (\(subscriber.log))", timeout: 15) {
            subscriber.log.contains(#""event":"didShow""#)
        }
        // Its Verdict came: local true, judged for it alone.
        #expect(subscriber.log.contains(#""local":true"#), "\(subscriber.log)")
        // A client that subscribes now hears of the keyboard already up, as SubscriberEvents.
        let late = try Kbwatch.start(["--json", "--from-service"], environment: env)
        defer { late.stop() }
        try Wait.require("the late subscriber's didShow (\(late.log))", timeout: 15) {
            late.log.contains(#""event":"didShow""#)
        }
        keyboard.stop()
        try Wait.require("the listener's didHide (\(listener.log))", timeout: 15) {
            listener.log.contains("Event didHide")
        }
        let heard = listener.log.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(heard.contains("Event"), "\(listener.log)")
        #expect(!heard.contains("Verdict") && !heard.contains("SubscriberEvent"), "\(listener.log)")
        #expect(listener.log.contains("Event willShow") && listener.log.contains("Event willHide"), "\(listener.log)")

        // Hide with no keyboard up: the reason reads right.
        let hide = try Kbwatch.run(["--from-service", "--hide"], environment: env)
        #expect(hide.status == 1, "\(hide.stderr)")
        #expect(hide.stderr.contains("no keyboard is visible"), "\(hide.stderr)")
        listener.stop()
    }
}
