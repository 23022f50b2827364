import Foundation
import KeyboardAdapterCore
import KeyboardReplay
import TestSupport
import Testing

@Suite("kbwatch: output formats")
struct OutputTests {
    @Test("--json follows the schema-1 contract field by field")
    func jsonContract() throws {
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        #expect(result.status == 0)
        try #require(result.lines.count == 6)
        let keys = [
            "schema", "event", "time", "backend", "keyboard", "output", "beginFrame", "endFrame", "visible",
            "docked", "local", "animationDuration", "animationCurve", "layout", "geometry", "endFramePredicted",
            "timing",
        ]
        var events: [String] = []
        for line in result.lines {
            // Field order is part of the contract: check the raw text, then the values.
            let positions = keys.map { line.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil }, "missing field in \(line)")
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "field order in \(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == Set(keys))
            #expect(object["schema"] as? Int == 1)
            let event = try #require(object["event"] as? String)
            events.append(event)
            #expect(KeyboardEvent(rawValue: event) != nil)
            let time = try #require(object["time"] as? String)
            #expect(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
            #expect(object["backend"] as? String == "replay")
            let keyboard = try #require(object["keyboard"] as? [String: Any])
            #expect(keyboard["id"] as? String == "x11:0x1c00003")
            #expect(keyboard["name"] as? String == "matchbox-keyboard")
            #expect(keyboard["kind"] as? String == "keyboard")
            #expect(keyboard["pid"] as? Int == 1234)
            let output = try #require(object["output"] as? [String: Any])
            #expect(
                output["name"] as? String == "screen" && output["width"] as? Int == 1280
                    && output["height"] as? Int == 800)
            for frameKey in ["beginFrame", "endFrame"] {
                let frame = try #require(object[frameKey] as? [String: Any])
                #expect(Set(frame.keys) == ["x", "y", "width", "height"])
                #expect(frame.values.allSatisfy { $0 is Int })
            }
            #expect(object["visible"] is Bool && object["docked"] is Bool)
            #expect(object["local"] is NSNull)
            #expect((object["animationDuration"] as? Double).map { $0 >= 0 } == true)
            #expect(
                ["none", "linear", "easeIn", "easeOut", "easeInOut", "unknown"].contains(
                    object["animationCurve"] as? String ?? ""))
            #expect(["reported", "derived", "unknown"].contains(object["geometry"] as? String ?? ""))
        }
        #expect(events == ["willShow", "didShow", "willChangeFrame", "didChangeFrame", "willHide", "didHide"])
        let first = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[1].utf8)) as? [String: Any])
        #expect((first["layout"] as? [String: Any])?["code"] as? String == "us")
        #expect(first["docked"] as? Bool == true && first["visible"] as? Bool == true)
        #expect(first["endFrame"] as? [String: Int] == ["x": 0, "y": 560, "width": 1280, "height": 240])
        #expect(first["beginFrame"] as? [String: Int] == ["x": 0, "y": 800, "width": 1280, "height": 240])
    }

    @Test("the human format: time, event, name, frame, docked, local, output")
    func humanFormat() throws {
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max"])
        #expect(result.status == 0)
        try #require(result.lines.count == 6)
        let pattern = #"^\d\d:\d\d:\d\d\.\d{3} didShow +matchbox-keyboard +0,560 1280x240 +docked +local=\? +screen$"#
        #expect(result.lines[1].range(of: pattern, options: .regularExpression) != nil, "\(result.lines[1])")
        #expect(
            result.lines[3].contains("didChangeFrame") && result.lines[3].contains("0,500 1280x240")
                && result.lines[3].contains("floating"))
    }

    @Test("--format fills the fields")
    func formatTemplate() throws {
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run([
            "--replay", path, "--speed", "max", "--format", "%e %x %y %w %h %n %o %d %l %k %L %%",
        ])
        #expect(
            result.lines == [
                "willShow 0 560 1280 240 matchbox-keyboard screen docked unknown keyboard English (US) %",
                "didShow 0 560 1280 240 matchbox-keyboard screen docked unknown keyboard English (US) %",
                "willChangeFrame 0 500 1280 240 matchbox-keyboard screen floating unknown keyboard English (US) %",
                "didChangeFrame 0 500 1280 240 matchbox-keyboard screen floating unknown keyboard English (US) %",
                "willHide 0 800 1280 240 matchbox-keyboard screen floating unknown keyboard English (US) %",
                "didHide 0 800 1280 240 matchbox-keyboard screen floating unknown keyboard English (US) %",
            ])
    }

    @Test("a keyboard's own window beside its frame: windowFrame in --json after timing, %W in --format, - where none")
    func windowFrame() throws {
        let framed = Rect(x: 0, y: 535, width: 1282, height: 265)
        let window = Rect(x: 1, y: 555, width: 1280, height: 240)
        let path = Recordings.write([
            KeyboardObservation(
                time: 0, keyboard: Recordings.keyboard, frame: framed, output: Recordings.screen, windowFrame: window),
            KeyboardObservation(
                time: 0.2, keyboard: Recordings.keyboard, frame: Rect(x: 1, y: 560, width: 1280, height: 240),
                output: Recordings.screen),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = try Kbwatch.run(["--replay", path, "--speed", "max", "--format", "%e %f %W"])
        #expect(
            format.lines == [
                "willShow 0,535 1282x265 1,555 1280x240", "didShow 0,535 1282x265 1,555 1280x240",
                "willChangeFrame 1,560 1280x240 -", "didChangeFrame 1,560 1280x240 -",
            ])
        let json = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        try #require(json.lines.count == 4)
        #expect(
            json.lines[1].hasSuffix(#""timing":"measured","windowFrame":{"x":1,"y":555,"width":1280,"height":240}}"#))
        #expect(!json.lines[3].contains("windowFrame"))
    }

    @Test("hostile names: escape sequences and invalid UTF-8 never reach the terminal raw; JSON stays valid")
    func hostileNames() throws {
        // Control characters arrive JSON-escaped (raw ones would make the line invalid JSON);
        // the invalid UTF-8 bytes arrive raw and are decoded lossily.
        var line = Data(#"{"t":0,"keyboard":{"id":"x11:0x1","name":"evil\u001b[2J\u001b]0;pwn\u0007"#.utf8)
        line.append(contentsOf: [0xFF, 0xC3, 0x28])
        line.append(
            Data(
                #"\u009b1m\u001b[31m\u202e","kind":"keyboard"},"frame":{"x":0,"y":560,"width":1280,"height":240},"output":{"name":"scr\u0007een","x":0,"y":0,"width":1280,"height":800},"geometry":"reported"}"#
                    .utf8))
        line.append(0x0A)
        let path = Recordings.write(data: line)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let human = try Kbwatch.run(["--replay", path, "--speed", "max"])
        #expect(human.status == 0)
        try #require(human.lines.count == 2)
        let bytes = [UInt8](human.stdoutData)
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x07))
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A })
        #expect(!human.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(human.lines[1].contains(#"evil\e[2J\e]0;pwn\u{7}"#))
        #expect(human.lines[1].contains(#"scr\u{7}een"#))

        let json = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        #expect(json.status == 0)
        for text in json.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let name = try #require((object["keyboard"] as? [String: Any])?["name"] as? String)
            #expect(name.hasPrefix("evil\u{1B}[2J"))
            #expect(!text.utf8.contains(0x1B))
        }

        let format = try Kbwatch.run(["--replay", path, "--speed", "max", "--format", "%n|%o"])
        #expect(!format.stdoutData.contains(0x1B))
    }

    @Test("--record writes a recording that replays to the same events")
    func recordAndReplay() throws {
        let source = Recordings.write(Recordings.showMoveHide)
        let copy = NSTemporaryDirectory() + "kbwatch-record-\(UUID().uuidString).jsonl"
        defer {
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: copy)
        }
        let first = try Kbwatch.run(["--replay", source, "--speed", "max", "--record", copy, "--format", "%e %f %b"])
        let second = try Kbwatch.run(["--replay", copy, "--speed", "max", "--format", "%e %f %b"])
        #expect(first.status == 0 && second.status == 0)
        #expect(first.lines.count == 6 && first.lines == second.lines)
        let recorded = try String(contentsOfFile: copy, encoding: .utf8)
        #expect(recorded.split(separator: "\n").count == 3)
    }

    @Test("--speed: real time takes the recording's time, max does not wait")
    func speed() throws {
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let start = Date()
        let timed = try Kbwatch.run(["--replay", path, "--speed", "2", "--format", "%e"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(timed.lines.count == 6 && elapsed >= 0.2)
    }

    @Test("SIGINT mid-stream exits 0 and leaves only complete lines")
    func interrupt() throws {
        let path = Recordings.write(Recordings.moving(seconds: 20))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--json", "--settle", "10"], timeout: 30) { pid, stdout in
            // Mid-stream: once some lines are out, long before the 20 s recording ends.
            Wait.until(timeout: 15) { stdout().split(separator: "\n").count >= 10 }
            kill(pid, SIGINT)
        }
        #expect(result.status == 0)
        #expect(result.lines.count >= 10)
        #expect(result.stdout.hasSuffix("\n"))
        for line in result.lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil) }
        #expect(result.stderr.isEmpty)
    }

    @Test("SIGTERM ends it the same way")
    func terminate() throws {
        let path = Recordings.write(Recordings.moving(seconds: 20))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--format", "%e"], timeout: 30) { pid, stdout in
            Wait.until(timeout: 15) { stdout().split(separator: "\n").count >= 4 }
            kill(pid, SIGTERM)
        }
        #expect(result.status == 0 && result.stdout.hasSuffix("\n") && !result.lines.isEmpty)
    }

    @Test("--replay - reads standard input as it comes, and SIGINT ends it even while the pipe stays open")
    func replayFromOpenPipe() throws {
        let process = Programs.process(Kbwatch.path, ["--replay", "-", "--format", "%e"], environment: [:])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let lines = Recordings.showMoveHide.map { ObservationCodec.encode($0, relativeTo: 0) }
        // Writing to a kbwatch that died must fail this test, not kill the whole test process.
        signal(SIGPIPE, SIG_IGN)
        try Programs.start(process)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Read on a thread of its own (see `PipeDrain`); only the child holds the write end.
        try? output.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
        let drain = PipeDrain(output.fileHandleForReading)
        try? output.fileHandleForReading.close()
        let received = { String(decoding: drain.data, as: UTF8.self) }
        input.fileHandleForWriting.write(Data((lines[0] + "\n").utf8))
        try Wait.require("willShow from the first line on stdin", timeout: 10) { received() == "willShow\n" }
        // The replay's clock is the recording's: the show settles when a later line says time has passed.
        input.fileHandleForWriting.write(Data((lines[1] + "\n").utf8))
        try Wait.require("didShow, then the move, from the second line", timeout: 10) {
            received() == "willShow\ndidShow\nwillChangeFrame\n"
        }
        kill(process.processIdentifier, SIGINT)
        try Wait.require("kbwatch to exit on SIGINT with its stdin still open", timeout: 5) { !process.isRunning }
        #expect(process.terminationStatus == 0)
        try? input.fileHandleForWriting.close()
    }
}
