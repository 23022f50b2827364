import Foundation
import TestSupport
import Testing

/// libkeyboard-adapter (`libkeyboard-adapter/`, the GObject library in C on GLib/GIO), built with
/// meson into a scratch directory under `.build`, and its client (`tests/watch-client.c`, `.py`,
/// `.js` and `.vala`, which print the same lines) run from C, from Python (PyGObject) and from GJS
/// through the introspection data of that build, and from Vala through its vapi, against the
/// repository's kbwatch activated by a private session bus, on Xvfb with openbox and xvkbd.
@Suite("libkeyboard-adapter: the GObject library from C, Python, GJS and Vala", .serialized)
struct GObjectLibraryTests {
    static let source = KeyboardAdapterLibrary.source
    static let buildDirectory = KeyboardAdapterLibrary.buildDirectory
    static let runPrograms = ["/usr/bin/python3", "gjs"] + SessionServiceTests.programs

    /// Whether the library is built (a skip outside CI when a build tool is missing), without a
    /// warning (`KeyboardAdapterLibrary` builds it once per test process, for the examples too).
    static func built() throws -> Bool {
        guard try Programs.ready(KeyboardAdapterLibrary.buildPrograms) else { return false }
        switch KeyboardAdapterLibrary.build {
        case .built(_, let warnings):
            #expect(warnings.isEmpty, "warnings building libkeyboard-adapter:\n\(warnings.joined(separator: "\n"))")
            return true
        case .failed(let reason):
            Issue.record(Comment(rawValue: reason))
            return false
        }
    }

    /// The environment that finds the build's library and typelib.
    static var libraryEnvironment: [String: String?] { KeyboardAdapterLibrary.environment }

    /// The client in each language: its name and the command that runs it.
    static let clients: [(name: String, command: [String])] = [
        ("C", [buildDirectory + "/tests/watch-client"]),
        ("Python", ["/usr/bin/python3", source + "/tests/watch-client.py"]),
        ("GJS", ["gjs", source + "/tests/watch-client.js"]),
        ("Vala", [buildDirectory + "/tests/watch-client-vala"]),
    ]

    /// A client's lines of one kind (`will-show`, `available`, ...), in order.
    static func lines(_ log: String, _ prefix: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix + " ") }
    }

    /// A client's event lines (the six signals), in order.
    static func events(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.hasPrefix("will-") || $0.hasPrefix("did-") }
    }

    @Test(
        "meson builds the library without a warning: its GIR, typelib, vapi, pkg-config file and gi-docgen reference, every symbol documented; the Verdict rules' unit test passes"
    )
    func builds() throws {
        guard try Self.built() else { return }
        for file in [
            "keyboard-adapter/libkeyboard-adapter-1.so.0", "keyboard-adapter/KeyboardAdapter-1.gir",
            "keyboard-adapter/KeyboardAdapter-1.typelib", "keyboard-adapter/keyboard-adapter-1.vapi",
            "meson-private/keyboard-adapter-1.pc", "tests/watch-client", "tests/watch-client-vala",
            "docs/keyboard-adapter-1/class.Watcher.html",
        ] {
            #expect(FileManager.default.fileExists(atPath: Self.buildDirectory + "/" + file), "\(file)")
        }
        let gir = try String(
            contentsOfFile: Self.buildDirectory + "/keyboard-adapter/KeyboardAdapter-1.gir", encoding: .utf8)
        for name in [
            #"<namespace name="KeyboardAdapter""#, #"<class name="Watcher""#, #"<glib:signal name="will-show""#,
            #"<property name="keyboard-rectangle""#, #"<record name="Rect""#, #"<enumeration name="Local""#,
            #"glib:error-domain="ka-error-quark""#, #"<method name="show_async""#,
        ] {
            #expect(gir.contains(name), "\(name)")
        }
        let test = try Programs.run(
            "/bin/sh", ["-c", "exec meson test -C \"$1\" 2>&1", "sh", Self.buildDirectory], timeout: 120)
        #expect(test.status == 0, "\(test.output)")
        // Every public symbol documented: gi-docgen's check lists those that are not.
        let check = try Programs.run(
            "/bin/sh",
            [
                "-c", "exec gi-docgen check \"$1\" 2>&1", "sh",
                Self.buildDirectory + "/keyboard-adapter/KeyboardAdapter-1.gir",
            ],
            timeout: 120)
        let undocumented = check.output.split(separator: "\n").filter { !$0.contains("INFO") }
        #expect(check.status == 0 && undocumented.isEmpty, "\(check.output)")
        // The GTK 4 companion's too, where it was built.
        let gtk4 = Self.buildDirectory + "/gtk4/KeyboardAdapterGtk4-1.gir"
        if FileManager.default.fileExists(atPath: gtk4) {
            let check = try Programs.run(
                "/bin/sh",
                [
                    "-c", "exec gi-docgen check --add-include-path=\"$1\" \"$2\" 2>&1", "sh",
                    Self.buildDirectory + "/keyboard-adapter", gtk4,
                ], timeout: 120)
            let undocumented = check.output.split(separator: "\n").filter { !$0.contains("INFO") }
            #expect(check.status == 0 && undocumented.isEmpty, "\(check.output)")
        }
    }

    @Test(
        "from C, Python, GJS and Vala: will-show at xvkbd's frame, local true for the app's own focused window and false for another app's, did-hide; Show's error; the service's restart"
    )
    func hearsTheKeyboard() throws {
        guard try Programs.ready(Self.runPrograms), try Self.built() else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let mine = try #require(world.mineWindow)
        let theirs = try world.session.window(titled: "another app", of: world.theirs)
        let environment = world.environment.merging(Self.libraryEnvironment) { $1 }
        let clients = try Self.clients.map { client in
            let arguments = Array(client.command.dropFirst()) + ["--window-id", String(mine, radix: 16)]
            return (client.name, try world.session.start(client.command[0], arguments, environment: environment))
        }
        defer { clients.forEach { $0.1.stop() } }
        func waitAll(_ what: String, count: Int = 1, _ prefix: String) throws {
            for (name, client) in clients {
                try Wait.require("\(name): \(what) (\(client.log))", timeout: 20) {
                    Self.lines(client.log, prefix).count >= count
                }
            }
        }
        // Subscribing started the service through the bus; xvkbd has no service, so Show is refused.
        try waitAll("subscribed", "available")
        try waitAll("Show's answer", "show")
        let firstOwner = try #require(try world.bus.owner(of: "org.keyboardadapter.Watcher"))
        // A stranger's signals, addressed to each client as anyone on the bus may: the service's
        // (a Verdict, then an Event it would apply to, a SubscriberEvent) and the bus's
        // NameOwnerChanged. Believed, one would print a line, or a later line would differ.
        let path = "/org/keyboardadapter/Watcher"
        let interface = "org.keyboardadapter.Watcher2"
        let before = clients.map { $0.1.log }
        for (name, client) in clients {
            for signal: ForgedSignals.Signal in [
                .variant(path: path, interface: interface, member: "Verdict", value: "(uint32 0, {'local': <true>})"),
                .update(path: path, interface: interface, member: "Event", name: "forged"),
                .update(path: path, interface: interface, member: "SubscriberEvent", name: "forged"),
                .nameLost("org.keyboardadapter.Watcher"), .nameTaken("org.keyboardadapter.Watcher"),
            ] {
                let sent = try ForgedSignals.send(signal, toConnectionsOf: client.pid, bus: world.bus.address)
                #expect(sent >= 1, "\(name): no connection to forge to")
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(clients.map { $0.1.log } == before, "a forged signal believed")

        /// xvkbd shown, moved, and hidden by `hider` (ka_watcher_hide_async on SIGUSR1).
        func showKeyboard(round: Int, hiddenBy hider: Int) throws -> (shown: String, moved: String) {
            let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
            try waitAll("did-show", count: round, "did-show")
            let window = try #require(
                try world.session.run("xdotool", ["search", "--onlyvisible", "--class", "xvkbd"])
                    .split(separator: "\n").compactMap { UInt($0) }.first)
            let shown = try #require(try world.session.xwininfoCovered(window))
            try world.session.xdotool("windowmove", String(window), "0", "400")
            try waitAll("did-change-frame", count: round, "did-change-frame")
            let moved = try #require(try world.session.xwininfoCovered(window))
            clients[hider].1.signal(SIGUSR1)
            try waitAll("did-hide", count: round, "did-hide")
            keyboard.stop()
            return (
                "\(shown.x),\(shown.y) \(shown.width)x\(shown.height)",
                "\(moved.x),\(moved.y) \(moved.width)x\(moved.height)"
            )
        }
        // The window the clients named as their own has the focus.
        let first = try showKeyboard(round: 1, hiddenBy: 0)
        // The service killed: each hears it go, subscribes again, and the bus starts another.
        let pid = try #require(try world.bus.pid(of: firstOwner))
        kill(pid, SIGKILL)
        try waitAll("the service gone", count: 2, "available")
        try waitAll("subscribed again", count: 3, "available")
        let secondOwner = try #require(try world.bus.owner(of: "org.keyboardadapter.Watcher"))
        #expect(secondOwner != firstOwner)
        // Another app's window has the focus.
        try world.session.activate(theirs, readBy: world.apps)
        let second = try showKeyboard(round: 2, hiddenBy: 3)
        // Nothing left to hide.
        for (name, client) in clients[1...2] {
            client.signal(SIGUSR1)
            try Wait.require("\(name): Hide's answer (\(client.log))", timeout: 20) {
                !Self.lines(client.log, "hide").isEmpty
            }
        }

        for (name, client) in clients {
            let log = client.log
            print("\(name) client:\n\(log)")
            #expect(Self.lines(log, "available") == ["available true", "available false", "available true"], "\(name)")
            let show = Self.lines(log, "show").first ?? ""
            #expect(show.hasPrefix("show error unsupported: "), "\(name): \(show)")
            func round(_ frames: (shown: String, moved: String), _ local: Bool) -> [String] {
                [
                    "will-show \(frames.shown)", "did-show \(frames.shown)", "will-change-frame \(frames.moved)",
                    "did-change-frame \(frames.moved)", "will-hide", "did-hide",
                ].map { "\($0) local=\(local)" }
            }
            // The hide's frames are off screen: the events' names and local are compared there.
            let events = Self.events(log).map {
                $0.hasPrefix("will-hide") || $0.hasPrefix("did-hide")
                    ? String($0.prefix { $0 != " " }) + " local="
                        + ($0.firstMatch(of: /local=(\w+)/).map { String($0.1) } ?? "") : $0
            }.map { $0.replacing(" name=xvkbd", with: "") }
            #expect(events == round(first, true) + round(second, false), "\(name)")
            #expect(
                Self.lines(log, "visible")
                    == [
                        "visible true \(first.shown)", "visible false 0,0 0x0", "visible true \(second.shown)",
                        "visible false 0,0 0x0",
                    ],
                "\(name)")
            let hides = Self.lines(log, "hide")
            switch name {
            case "C", "Vala": #expect(hides == ["hide ok"], "\(name)")
            default: #expect(hides.count == 1 && hides[0].hasPrefix("hide error not-visible: "), "\(name): \(hides)")
            }
        }
    }

    @Test(
        "without the service, or with a service started without a display: service-available stays false and the error says why, from C, Python, GJS and Vala"
    )
    func serviceAbsent() throws {
        guard try Programs.ready(["/usr/bin/python3", "gjs", "dbus-daemon", "dbus-send"]), try Self.built() else {
            return
        }
        let directory = NSTemporaryDirectory() + "libkeyboard-adapter-" + UUID().uuidString.prefix(8)
        let services = directory + "/services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bus = try SessionBus(directory: directory, home: directory, serviceDirectory: services)
        defer { bus.stop() }
        // A bus that can start no org.keyboardadapter.Watcher, unless one is installed system-wide.
        let installed = FileManager.default.fileExists(
            atPath: "/usr/share/dbus-1/services/org.keyboardadapter.Watcher.service")
        let environment = Self.libraryEnvironment.merging([
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "DISPLAY": nil, "WAYLAND_DISPLAY": nil,
        ]) { $1 }
        func errors(_ code: String) throws {
            let clients = try Self.clients.map {
                (
                    $0.name,
                    try ChildProcess(
                        $0.command[0], Array($0.command.dropFirst()), environment: environment, directory: directory)
                )
            }
            defer { clients.forEach { $0.1.stop() } }
            for (name, client) in clients {
                try Wait.require("\(name): the error (\(client.log))", timeout: 20) {
                    !Self.lines(client.log, "error").isEmpty
                }
                let error = Self.lines(client.log, "error")[0]
                #expect(error.hasPrefix("error \(code): "), "\(name): \(error)")
                #expect(Self.lines(client.log, "available").isEmpty, "\(name): \(client.log)")
                #expect(client.isRunning, "\(name)")
            }
        }
        if !installed {
            try errors("service-unknown")
        }
        try "[D-BUS Service]\nName=org.keyboardadapter.Watcher\nExec=\(Kbwatch.path) --serve --idle-exit 5\n".write(
            toFile: services + "/org.keyboardadapter.Watcher.service", atomically: true, encoding: .utf8)
        try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig")
        try errors("no-display")
    }

    @Test(
        "progress frames on request: from C, Python and GJS with progress-frames, between will-change-frame and did-change-frame, animating around them; none for Vala, which did not ask; ids named anew judge the events that follow"
    )
    func progressFrames() throws {
        guard try Programs.ready(Self.runPrograms), try Self.built() else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let mine = try #require(world.mineWindow)
        let environment = world.environment.merging(Self.libraryEnvironment) { $1 }
        let clients = try Self.clients.map { client in
            let arguments =
                Array(client.command.dropFirst()) + ["--window-id", String(mine, radix: 16)]
                + (client.name == "Vala" ? [] : ["--progress"])
            return (client.name, try world.session.start(client.command[0], arguments, environment: environment))
        }
        defer { clients.forEach { $0.1.stop() } }
        func waitAll(_ what: String, _ prefix: String) throws {
            for (name, client) in clients {
                try Wait.require("\(name): \(what) (\(client.log))", timeout: 20) {
                    !Self.lines(client.log, prefix).isEmpty
                }
            }
        }
        try waitAll("subscribed", "available")
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        try waitAll("did-show", "did-show")
        let window = try #require(
            try world.session.run("xdotool", ["search", "--onlyvisible", "--class", "xvkbd"])
                .split(separator: "\n").compactMap { UInt($0) }.first)
        let driver = try XTestClient.connect(world.session.display)
        // Steps closer together than the settle interval: one move, its frames in between.
        for step in 1...8 {
            driver.configure(window, x: 100 + step * 20, y: 500)
            Thread.sleep(forTimeInterval: 0.01)
        }
        try waitAll("did-change-frame", "did-change-frame")
        // The C client names no window any more: subscribed again, the events that follow (of the
        // keyboard up now too) are judged anew, and the others' stay as they were.
        let c = clients[0].1
        c.signal(SIGUSR2)
        Thread.sleep(forTimeInterval: 0.5)
        let marks = clients.map { Self.events($0.1.log).count }
        try world.session.xdotool("windowmove", String(window), "100", "450")
        for ((name, client), mark) in zip(clients, marks) {
            try Wait.require("\(name): the second move (\(client.log))", timeout: 20) {
                Self.events(client.log).count >= mark + 2
            }
            #expect(
                Self.events(client.log).dropFirst(mark).map { $0.replacing(" name=xvkbd", with: "") } == [
                    "will-change-frame 100,450 602x225 local=\(name == "C" ? "false" : "true")",
                    "did-change-frame 100,450 602x225 local=\(name == "C" ? "false" : "true")",
                ], "\(name)")
        }
        for (name, client) in clients {
            let log = client.log.split(separator: "\n").map(String.init)
            print("\(name) client:\n\(client.log)")
            let progress = log.indices.filter { log[$0].hasPrefix("progress ") }
            if name == "Vala" {
                #expect(progress.isEmpty, "\(name) did not ask for progress frames")
                continue
            }
            let will = try #require(log.firstIndex { $0.hasPrefix("will-change-frame ") }, "\(name)")
            let did = try #require(log.firstIndex { $0.hasPrefix("did-change-frame ") }, "\(name)")
            #expect(!progress.isEmpty && progress.allSatisfy { will < $0 && $0 < did }, "\(name)")
            for index in progress {
                let frame = try #require(
                    log[index].firstMatch(of: /^progress (\d+),500 602x225 local=true$/), "\(log[index])")
                #expect((100...260).contains(Int(frame.1) ?? 0), "\(name): \(log[index])")
            }
            // animating from the will event to the did event (notify comes before the signal).
            #expect(log[will - 1] == "animating true" && log[did - 1] == "animating false", "\(name)")
        }
    }

    @Test(
        "libkeyboard-adapter-gtk4 from Python: the part of a GTK 4 window xvkbd covers, in the window's coordinates, followed through the window's moves, empty once hidden"
    )
    func gtk4Coverage() throws {
        guard try Programs.ready(Self.runPrograms), try Self.built() else { return }
        guard FileManager.default.fileExists(atPath: Self.buildDirectory + "/gtk4/KeyboardAdapterGtk4-1.typelib") else {
            try Programs.skip(
                "libgtk-4-dev is missing (pkg-config knows no gtk4): libkeyboard-adapter-gtk4 was not built")
            return
        }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let environment = world.environment.merging(Self.libraryEnvironment) { $1 }.merging([
            "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none",
        ]) { $1 }
        let app = try world.session.start(
            "/usr/bin/python3", [Self.source + "/tests/coverage-client.py"], environment: environment)
        defer { app.stop() }
        func lines(_ prefix: String) -> [String] { Self.lines(app.log, prefix) }
        try Wait.require("the window (\(app.log))", timeout: 20) {
            !lines("window").isEmpty && lines("covered").contains("covered known=true 0,0 0x0 inset 0")
        }
        let window = try #require(lines("window").first.flatMap { UInt($0.dropFirst("window 0x".count), radix: 16) })
        /// The window's content on screen: its surface where the X server has it, less the transform.
        func content() throws -> (x: Int, y: Int, width: Int, height: Int) {
            let surface = try #require(try world.session.xwininfo(window))
            let line = try #require(lines("content").last)
            let numbers = try #require(line.firstMatch(of: /^content (-?\d+),(-?\d+) (\d+)x(\d+)$/))
            return (surface.x + Int(numbers.1)!, surface.y + Int(numbers.2)!, Int(numbers.3)!, Int(numbers.4)!)
        }
        /// The line the app must print for `keyboard` over `window` (both on screen).
        func expected(
            _ keyboard: (x: Int, y: Int, width: Int, height: Int), _ window: (x: Int, y: Int, width: Int, height: Int)
        )
            -> String
        {
            let left = max(keyboard.x, window.x)
            let top = max(keyboard.y, window.y)
            let right = min(keyboard.x + keyboard.width, window.x + window.width)
            let bottom = min(keyboard.y + keyboard.height, window.y + window.height)
            guard right > left, bottom > top else { return "covered known=true 0,0 0x0 inset 0" }
            return
                "covered known=true \(left - window.x),\(top - window.y) \(right - left)x\(bottom - top) inset \(window.y + window.height - top)"
        }
        try world.session.xdotool("windowmove", "--sync", String(window), "240", "40")
        Thread.sleep(forTimeInterval: 0.5)
        let keyboardProcess = try world.session.start("xvkbd", ["-geometry", "1000x200+100+550"])
        defer { keyboardProcess.stop() }
        var found: UInt?
        try Wait.require("xvkbd's window", timeout: 15) {
            found = try? world.session.run("xdotool", ["search", "--onlyvisible", "--class", "xvkbd"])
                .split(separator: "\n").compactMap { UInt($0) }.first
            return found != nil
        }
        let keyboardWindow = try #require(found)
        var marks: [String] = []
        for move in [nil, (140, 100), (300, 300)] {
            if let (x, y) = move {
                try world.session.xdotool("windowmove", "--sync", String(window), String(x), String(y))
            }
            var line = ""
            try Wait.require("the covered part after \(String(describing: move)) (\(app.log))", timeout: 15) {
                guard let keyboard = try? world.session.xwininfoCovered(keyboardWindow), let place = try? content()
                else {
                    return false
                }
                line = expected(keyboard, place)
                return lines("covered").last == line
            }
            #expect(line != "covered known=true 0,0 0x0 inset 0", "xvkbd covers the window's bottom")
            marks.append(line)
        }
        let hide = try Kbwatch.run(["--from-service", "--hide"], environment: world.environment)
        #expect(hide.status == 0, "\(hide.stderr)")
        try Wait.require("nothing covered once hidden (\(app.log))", timeout: 15) {
            lines("covered").last == "covered known=true 0,0 0x0 inset 0"
        }
        print("coverage-client:\n\(app.log)")
        #expect(Set(marks).count == 3, "each move changed the covered part: \(marks)")
        // As docs/service.md shows them (its third output).
        let documented = try Self.documentedBlocks().filter { $0.language.isEmpty }.map(\.text)
        #expect(documented.count == 3 && documented[2].split(separator: "\n").map(String.init) == marks)
    }

    /// The code blocks of docs/service.md's section on the library, in order: each one's language
    /// (empty for output) and text.
    static func documentedBlocks() throws -> [(language: String, text: String)] {
        let document = try String(
            contentsOf: SchemaValidator.repository.appendingPathComponent("docs/service.md"), encoding: .utf8)
        let heading = "## From C, Python, JavaScript and Vala: libkeyboard-adapter\n"
        let start = try #require(document.range(of: heading)).upperBound
        let section = document[start...].split(separator: "\n## ", maxSplits: 1).first ?? ""
        var blocks: [(language: String, text: String)] = []
        var open: (language: String, lines: [Substring])?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append((block.language, block.lines.joined(separator: "\n") + "\n"))
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)), [])
                }
            } else {
                open?.lines.append(line)
            }
        }
        return blocks
    }

    @Test("docs/service.md's examples in Python, GJS and C print what it shows, through a restart of the service")
    func documentedExamples() throws {
        guard try Programs.ready(Self.runPrograms), try Self.built() else { return }
        let blocks = try Self.documentedBlocks()
        func code(_ language: String) throws -> String {
            try #require(blocks.first { $0.language == language }?.text, "a \(language) block")
        }
        let outputs = blocks.filter { $0.language.isEmpty }.map(\.text)
        try #require(outputs.count >= 2, "the outputs of watch.py and watch.c, first")
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let directory = world.session.directory
        for (file, language) in [("watch.py", "python"), ("watch.js", "js"), ("watch.c", "c")] {
            try code(language).write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
        }
        // The C example built with the line the section gives, from the build's uninstalled pkg-config file.
        let built = try Programs.run(
            "/bin/sh",
            [
                "-c",
                "cd \"$1\" && cc -Wall -Wextra -o watch watch.c $(pkg-config --cflags --libs keyboard-adapter-1) 2>&1",
                "sh", directory,
            ], environment: ["PKG_CONFIG_PATH": Self.buildDirectory + "/meson-uninstalled"], timeout: 120)
        #expect(built.status == 0 && built.output.isEmpty, "\(built.output)")
        let environment = world.environment.merging(Self.libraryEnvironment) { $1 }
        let mine = try #require(world.mineWindow)
        let python = try world.session.start(
            "/usr/bin/python3", [directory + "/watch.py", "0x" + String(mine, radix: 16)], environment: environment)
        let gjs = try world.session.start("gjs", [directory + "/watch.js"], environment: environment)
        let c = try world.session.start(directory + "/watch", [], environment: environment)
        let watchers = [python, gjs, c]
        defer { watchers.forEach { $0.stop() } }
        func lines(_ process: ChildProcess) -> [String] {
            process.log.split(separator: "\n").map(String.init)
        }
        func waitFor(_ count: Int, _ line: String, in processes: [ChildProcess] = [python, gjs]) throws {
            for process in processes {
                try Wait.require("\(count) × \(line) (\(process.log))", timeout: 20) {
                    lines(process).filter { $0.hasPrefix(line) }.count >= count
                }
            }
        }
        try waitFor(1, "service available:")
        try waitFor(1, "hide: ", in: [c])
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        try waitFor(1, "did-show")
        try world.session.xdotool("search", "--sync", "--onlyvisible", "--class", "xvkbd", "windowmove", "0", "400")
        try waitFor(1, "did-change-frame")
        let owner = try #require(try world.bus.owner(of: "org.keyboardadapter.Watcher"))
        kill(try #require(try world.bus.pid(of: owner)), SIGKILL)
        try waitFor(2, "did-show")
        let hide = try Kbwatch.run(["--from-service", "--hide"], environment: world.environment)
        #expect(hide.status == 0, "\(hide.stderr)")
        try waitFor(1, "did-hide")
        try waitFor(2, "will-show", in: [c])
        let shown = outputs[0].split(separator: "\n").map(String.init)
        #expect(lines(python) == shown)
        #expect(
            lines(gjs)
                == shown.map {
                    $0.replacing("local true", with: "local false").replacing("True", with: "true")
                        .replacing("False", with: "false")
                })
        #expect(lines(c) == outputs[1].split(separator: "\n").map(String.init))
    }
}
