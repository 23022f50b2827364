import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

/// kbwatch against a real X server and real keyboards.
@Suite("kbwatch on X11")
struct LiveX11Tests {
    /// A private X server, or nil (after saying why) when a program is missing outside CI.
    func session(openbox: Bool = false, programs: [String] = []) throws -> X11Session? {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo"] + (openbox ? ["openbox"] : []) + programs) else {
            return nil
        }
        let session = try X11Session()
        if openbox { try session.startWindowManager() }
        return session
    }

    @Test("--state: exit 1 with no keyboard, exit 0 with matchbox-keyboard and its frame as xwininfo has it")
    func state() throws {
        guard let session = try session(programs: ["matchbox-keyboard"]) else { return }
        defer { session.stop() }
        let none = try Kbwatch.run(["--state"], environment: session.environment)
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.isEmpty)
        let noneJSON = try Kbwatch.run(["--state", "--json"], environment: session.environment)
        // Without a session bus, onboard's service says so in the field schema 1 gained for services.
        #expect(
            noneJSON.status == 1
                && noneJSON.stdout
                    == #"{"schema":1,"visible":false,"keyboards":[],"services":[{"name":"onboard","keyboard":"onboard","address":"org.onboard.Onboard on the session bus","status":"noBus","visible":null,"pid":null,"problem":"no session bus: DBUS_SESSION_BUS_ADDRESS is not set"}]}"#
                    + "\n"
        )

        try session.start("matchbox-keyboard")
        let client = try XTestClient.connect(session.display)
        var window: UInt = 0
        try Wait.require("matchbox-keyboard's window", timeout: 10) {
            let found = (try? session.run("xdotool", ["search", "--onlyvisible", "--name", "^Keyboard$"])) ?? ""
            window = found.split(separator: "\n").compactMap { UInt($0) }.first ?? 0
            return window != 0
        }
        _ = client
        let info = try #require(try session.xwininfo(window))
        let frame = "\(info.x),\(info.y) \(info.width)x\(info.height)"
        let shown = try Kbwatch.run(["--state"], environment: session.environment)
        #expect(shown.status == 0)
        #expect(shown.lines.count == 1)
        #expect(shown.stdout.hasPrefix("matchbox-keyboard "))
        #expect(shown.stdout.contains("x11:0x" + String(window, radix: 16)) && shown.stdout.contains(frame))
        let json = try Kbwatch.run(["--state", "--json"], environment: session.environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let keyboards = try #require(object["keyboards"] as? [[String: Any]])
        #expect(object["visible"] as? Bool == true && keyboards.count == 1)
        #expect(
            keyboards.first?["frame"] as? [String: Int]
                == ["x": info.x, "y": info.y, "width": info.width, "height": info.height])
    }

    @Test("--pid and --window judge local by the focused window; without them local is null")
    func ownership() throws {
        guard let session = try session(openbox: true, programs: ["xvkbd", "xmessage"]) else { return }
        defer { session.stop() }
        let apps = try XTestClient.connect(session.display)
        // Each window made by a process of its own; the other app's window claims this app's
        // pid in _NET_WM_PID, which counts for nothing: the X server says whose a window is.
        let (mineProcess, mine) = try session.startWindowProcess(title: "this app", instance: "app", x: 100, y: 100)
        let (theirsProcess, theirs) = try session.startWindowProcess(
            title: "another app", instance: "other", x: 500, y: 100)
        apps.setCardinals(mine, "_NET_WM_PID", [4242])
        apps.setCardinals(theirs, "_NET_WM_PID", [UInt(mineProcess.pid)])
        // The window mapped last first (see X11Session.activate).
        try session.activate(theirs, readBy: apps)
        try session.activate(mine, readBy: apps)
        let watchers = [
            ("--pid of this app", ["--pid", String(mineProcess.pid)], true as Bool?),
            ("--pid of another app", ["--pid", String(theirsProcess.pid)], false),
            ("--pid 4242 (this app's _NET_WM_PID)", ["--pid", "4242"], false),
            ("--window", ["--window", "0x" + String(mine, radix: 16)], true),
            ("no app", [], nil),
        ].map { name, arguments, expected in
            (
                name, expected,
                try? Kbwatch.start(["--json", "--backend", "x11"] + arguments, environment: session.environment)
            )
        }
        Thread.sleep(forTimeInterval: 0.5)
        try session.start("xvkbd")
        for (name, expected, watcher) in watchers {
            let watcher = try #require(watcher)
            try Wait.require("didShow from kbwatch \(name)", timeout: 15) {
                watcher.log.contains(#""event":"didShow""#)
            }
            watcher.signal(SIGINT)
            #expect(watcher.waitForExit(timeout: 5) == 0)
            let lines = watcher.log.split(separator: "\n").filter { $0.hasPrefix("{") }
            #expect(lines.count >= 2)
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                if let expected {
                    #expect(object["local"] as? Bool == expected, "kbwatch \(name): \(line)")
                } else {
                    #expect(object["local"] is NSNull, "kbwatch \(name): \(line)")
                }
            }
        }
        #expect(apps.rootCardinals("_NET_ACTIVE_WINDOW")?.first == mine)
    }

    @Test("a hostile window title and rule name never reach the terminal raw; JSON stays valid")
    func hostileWindow() throws {
        guard let session = try session() else { return }
        defer { session.stop() }
        // A user rule makes the hostile window a keyboard; its name carries escapes too.
        let rulesDirectory = session.directory + "/config/keyboard-adapter"
        try FileManager.default.createDirectory(atPath: rulesDirectory, withIntermediateDirectories: true)
        try #"{ "rules": [ { "name": "evil\u001b[2J\u0007\u009b31m\u202e", "class": "Evil" } ] }"#
            .write(toFile: rulesDirectory + "/rules.json", atomically: true, encoding: .utf8)
        let human = try Kbwatch.start(["--backend", "x11"], environment: session.environment)
        let json = try Kbwatch.start(["--json", "--backend", "x11"], environment: session.environment)
        Thread.sleep(forTimeInterval: 0.5)
        let client = try XTestClient.connect(session.display)
        var title: [UInt8] = Array("pwn".utf8) + [0x1B, 0x5D, 0x30, 0x3B, 0x78, 0x07, 0xFF, 0xFE, 0xC3, 0x28]
        title += Array(repeating: 0x41, count: 5000)
        _ = client.createWindow(
            x: 0, y: 600, width: 1280, height: 200, classBytes: Array("evil\u{1B}[1m\0Evil\0".utf8), titleBytes: title)
        for watcher in [human, json] {
            try Wait.require("didShow of the hostile window", timeout: 10) { watcher.log.contains("didShow") }
            watcher.signal(SIGINT)
            #expect(watcher.waitForExit(timeout: 5) == 0)
        }
        let humanBytes = Array(human.log.utf8)
        #expect(!humanBytes.contains(0x1B) && !humanBytes.contains(0x07))
        #expect(!human.log.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(human.log.contains(#"evil\e[2J\u{7}\u{9b}31m\u{202e}"#))
        for line in json.log.split(separator: "\n") {
            #expect(!line.utf8.contains(0x1B))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect((object["keyboard"] as? [String: Any])?["name"] as? String == "evil\u{1B}[2J\u{7}\u{9B}31m\u{202E}")
        }
    }

    @Test("the X server dying while watching: the keyboard is reported hidden, then exit 6 with the reason")
    func serverDies() throws {
        guard let session = try session(programs: ["matchbox-keyboard"]) else { return }
        defer { session.stop() }
        try session.start("matchbox-keyboard")
        let result = try Kbwatch.run(["--format", "%e"], environment: session.environment, timeout: 30) { _, stdout in
            Wait.until(timeout: 15) { stdout().hasSuffix("didShow\n") }
            session.killServer()
        }
        #expect(result.status == 6)
        #expect(result.stdout == "willShow\ndidShow\nwillHide\ndidHide\n")
        #expect(result.stderr == "kbwatch: x11: lost the connection to the X server \(session.display)\n")
    }
}
