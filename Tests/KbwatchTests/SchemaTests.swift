import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

/// kbwatch's JSON as a contract: real output, from replays and from live runs against real
/// keyboards (X11 and Wayland), validated against `schema/kbwatch-1.schema.json` by python3-jsonschema.
@Suite("kbwatch JSON schema 1")
struct SchemaTests {
    static let screen = Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
    static let onboard = KeyboardIdentity(id: "x11:0x1e00007", name: "onboard", pid: 4242)
    static let panel = KeyboardIdentity(id: "x11:0x2200003", name: "fcitx5", kind: .inputMethodPanel)
    static let virtual = KeyboardIdentity(id: "kwin:virtual", name: "virtual keyboard")

    /// onboard's docked slide on 1280x800, 12 steps 20 ms apart from below the screen to 0,595.
    static func slide(in inward: Bool, from start: Double) -> [KeyboardObservation] {
        let frames = (0...12).map { Rect(x: 0, y: 595 + (810 - 595) * $0 / 12, width: 1280, height: 205) }
        return (inward ? frames.reversed() : frames).enumerated().map { index, frame in
            KeyboardObservation(
                time: start + Double(index) * 0.02, keyboard: onboard, frame: frame, isDocked: true,
                dockedEdge: .bottom, output: screen, isLocal: true,
                layout: InputLayout(name: "English (US)", code: "us"))
        }
    }

    /// Everything schema 1 can say: a slide in (predicted end, progress with fractions), a slide
    /// out, a second slide in (predicted timing), a panel that moves (progress without a fraction)
    /// in a window manager's frame (its own window beside the frame), and a keyboard at an unknown
    /// place (null frames).
    static var everything: [KeyboardObservation] {
        let floating = Rect(x: 300, y: 200, width: 400, height: 40)
        let moves = (1...5).map {
            let frame = floating.offsetBy(dx: $0 * 10, dy: 0)
            return KeyboardObservation(
                time: 3.5 + Double($0) * 0.01, keyboard: panel, frame: frame, output: screen,
                windowFrame: Rect(x: frame.x + 1, y: frame.y + 15, width: frame.width - 2, height: frame.height - 16))
        }
        return slide(in: true, from: 0) + slide(in: false, from: 1)
            + [KeyboardObservation(time: 1.3, keyboard: onboard, frame: nil, output: screen)]
            + slide(in: true, from: 2)
            + [KeyboardObservation(time: 3, keyboard: panel, frame: floating, isDocked: false, output: screen)] + moves
            + [
                KeyboardObservation(time: 4, keyboard: panel, frame: nil),
                KeyboardObservation(
                    time: 4.5, keyboard: virtual, frame: nil, isDocked: true, dockedEdge: .bottom, output: screen,
                    geometry: .unknown, isShown: true),
                KeyboardObservation(time: 5, keyboard: virtual, frame: nil, output: screen, geometry: .unknown),
            ]
    }

    static func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    func expectValid(_ lines: [String], kind: String? = nil, _ what: String) throws {
        #expect(!lines.isEmpty, "\(what): no lines")
        let report = try SchemaValidator.validate(lines, kind: kind)
        #expect(report.status == 0, "\(what) is not valid schema 1:\n\(report.output)")
    }

    @Test("a replay of every kind of event, with and without --progress, is valid; so is the recording")
    func replay() throws {
        guard try SchemaValidator.ready() else { return }
        let path = Recordings.write(Self.everything)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        try expectValid(recording, kind: "recordingLine", "the recording")

        let plain = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        try expectValid(plain.lines, kind: "event", "kbwatch --replay --json")
        let result = try Kbwatch.run(["--replay", path, "--speed", "max", "--json", "--progress"])
        #expect(result.status == 0, "\(result.stderr)")
        try expectValid(result.lines, "kbwatch --replay --json --progress")

        // The replay covers what the schema allows, so the validation above means something.
        let objects = try Self.objects(result.lines)
        let events = Set(objects.compactMap { $0["event"] as? String })
        #expect(events == Set(KeyboardEvent.allCases.map(\.rawValue) + ["progress"]))
        let progress = objects.filter { $0["event"] as? String == "progress" }
        #expect(progress.contains { $0["fraction"] is Double } && progress.contains { $0["fraction"] is NSNull })
        #expect(objects.contains { $0["timing"] as? String == "predicted" })
        #expect(objects.contains { $0["endFramePredicted"] as? Bool == true })
        #expect(objects.contains { $0["endFrame"] is NSNull && $0["geometry"] as? String == "unknown" })
        #expect(objects.contains { ($0["keyboard"] as? [String: Any])?["kind"] as? String == "inputMethodPanel" })
        #expect(
            objects.contains { $0["windowFrame"] is [String: Int] } && objects.contains { $0["windowFrame"] == nil })
    }

    @Test("the validator rejects what schema 1 forbids")
    func rejects() throws {
        guard try SchemaValidator.ready() else { return }
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let line = try #require(try Kbwatch.run(["--replay", path, "--speed", "max", "--json"]).lines.first)
        try expectValid([line], kind: "event", "the first event")
        let broken = [
            line.replacingOccurrences(of: #""endFrame":{"#, with: #""endFrame":null,"x":{"#),
            line.replacingOccurrences(of: #""schema":1"#, with: #""schema":2"#),
            line.replacingOccurrences(of: #""timing":"unknown""#, with: #""timing":"measured""#),
            line.replacingOccurrences(of: #""visible":true"#, with: #""visible":false"#),
            line.replacingOccurrences(of: #""geometry":"reported""#, with: #""geometry":"unknown""#),
            line.replacingOccurrences(of: #","timing""#, with: #","extra":1,"timing""#),
            // A window with a negative size, and one out of the documented order.
            line.dropLast() + #","windowFrame":{"x":1,"y":2,"width":-3,"height":4}}"#,
            line.replacingOccurrences(
                of: #","timing""#, with: #","windowFrame":{"x":1,"y":2,"width":3,"height":4},"timing""#),
            line.replacingOccurrences(of: #""kind":"keyboard""#, with: #""kind":"mouse""#),
            #"{"schema":1,"visible":true,"keyboards":[]}"#,
            #"{"t":-1,"keyboard":{"id":"a","name":"b","kind":"keyboard"},"frame":null,"geometry":"reported"}"#,
        ]
        #expect(Set(broken).count == broken.count && !broken.contains(line))
        for text in broken {
            let report = try SchemaValidator.validate([text])
            #expect(report.status == 1, "accepted: \(text)")
        }
    }

    @Test("a live run against xvkbd: events, progress, --state and the recording are valid")
    func live() throws {
        guard try SchemaValidator.ready(), try Programs.ready(["Xvfb", "xdotool", "xvkbd"]) else { return }
        let session = try X11Session()
        defer { session.stop() }
        let none = try Kbwatch.run(["--state", "--json"], environment: session.environment)
        try expectValid(none.lines, kind: "state", "--state --json with no keyboard")

        let recording = session.directory + "/live.jsonl"
        let watcher = try Kbwatch.start(
            ["--json", "--progress", "--backend", "x11", "--record", recording], environment: session.environment)
        defer { watcher.stop() }
        Thread.sleep(forTimeInterval: 0.5)
        try session.start("xvkbd", ["-geometry", "640x200+320+600"])
        try Wait.require("didShow from kbwatch", timeout: 15) { watcher.log.contains(#""event":"didShow""#) }
        let keyboard = try #require(
            try session.run("xdotool", ["search", "--onlyvisible", "--class", "XVkbd"]).split(separator: "\n")
                .compactMap { UInt($0) }.first)
        let shown = try Kbwatch.run(["--state", "--json"], environment: session.environment)
        #expect(shown.status == 0)
        try expectValid(shown.lines, kind: "state", "--state --json with xvkbd")

        // A move in steps quicker than the settle interval: one frame change with progress frames.
        for step in 1...6 { try session.xdotool("windowmove", String(keyboard), String(320 - step * 20), "600") }
        try Wait.require("didChangeFrame from kbwatch", timeout: 15) {
            watcher.log.contains(#""event":"didChangeFrame""#)
        }
        try session.xdotool("windowunmap", String(keyboard))
        try Wait.require("didHide from kbwatch", timeout: 15) { watcher.log.contains(#""event":"didHide""#) }
        watcher.signal(SIGINT)
        #expect(watcher.waitForExit(timeout: 5) == 0)

        let lines = watcher.log.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{") }
        try expectValid(lines, "kbwatch --json --progress against xvkbd")
        let events = try Self.objects(lines).compactMap { $0["event"] as? String }
        #expect(
            Set(["willShow", "didShow", "willChangeFrame", "didChangeFrame", "willHide", "didHide"]).isSubset(
                of: events))
        let recorded = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").map(String.init)
        try expectValid(recorded, kind: "recordingLine", "the live recording")
    }

    @Test(
        "a live run against wvkbd on headless sway: the events (derived frames) and the recording are valid",
        arguments: Stack.compositors)
    func liveWayland(stack: Stack) throws {
        guard try SchemaValidator.ready(), try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
        let sway = try HeadlessSway(stack: stack)
        defer { sway.stop() }
        let recording = sway.runtime.path + "/live.jsonl"
        let watcher = try Kbwatch.start(
            ["--json", "--progress", "--backend", "wayland", "--record", recording],
            environment: sway.clientEnvironment)
        defer { watcher.stop() }
        // The backend takes the outputs' first usable areas as the baseline before a keyboard shows.
        Thread.sleep(forTimeInterval: 1)
        let keyboard = try sway.startWvkbd()
        defer { keyboard.stop() }
        keyboard.signal(SIGUSR2)
        if !Wait.until(timeout: 5, { watcher.log.contains(#""event":"didShow""#) }) {
            // kbwatch was not watching yet and took the keyboard for a panel; once hidden, it counts.
            keyboard.signal(SIGUSR1)
            Thread.sleep(forTimeInterval: 0.5)
            keyboard.signal(SIGUSR2)
        }
        try Wait.require("didShow from kbwatch", timeout: 15) { watcher.log.contains(#""event":"didShow""#) }
        keyboard.signal(SIGUSR1)
        try Wait.require("didHide from kbwatch", timeout: 15) { watcher.log.contains(#""event":"didHide""#) }
        watcher.signal(SIGINT)
        #expect(watcher.waitForExit(timeout: 5) == 0)

        let lines = watcher.log.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{") }
        let isProgress = { (line: String) in line.contains(#""event":"progress""#) }
        try expectValid(lines.filter { !isProgress($0) }, kind: "event", "kbwatch --json against wvkbd")
        #expect(try Self.objects(lines).allSatisfy { $0["geometry"] as? String == "derived" })
        // wvkbd 0.12 reserves its 240 px at once. wvkbd 0.15's first show may reserve 120 px for a
        // frame before its 250 px: the willShow names the 120 px strip, and the step to the 250 px
        // one is a progress frame of that show.
        let steps = lines.filter(isProgress)
        if !steps.isEmpty { try expectValid(steps, kind: "progress", "kbwatch --json --progress against wvkbd") }
        let settled: [String: Int] = ["x": 0, "y": 550, "width": 1280, "height": 250]
        #expect(steps.count <= (stack == .debian12 ? 0 : 1), "\(steps)")
        #expect(
            try Self.objects(steps).allSatisfy {
                $0["transition"] as? String == "willShow" && $0["endFrame"] as? [String: Int] == settled
            }, "\(steps)")
        let recorded = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").map(String.init)
        try expectValid(recorded, kind: "recordingLine", "the live Wayland recording")
    }
}
