import Foundation
import KbwatchOutput
import KeyboardAdapterCore
import TestSupport
import Testing

/// U+2028 and U+2029 are valid JSON and break lines in many terminals and log viewers: they reach
/// no output raw, also not error messages.
@Suite("kbwatch: line and paragraph separators")
struct SeparatorTests {
    static let separators: [Unicode.Scalar] = ["\u{2028}", "\u{2029}", "\u{061C}", "\u{85}", "\u{202E}", "\u{2066}"]

    func hasSeparator(_ text: String) -> Bool {
        text.unicodeScalars.contains { Self.separators.contains($0) }
    }

    @Test("TerminalText escapes line and paragraph separators and bidi controls")
    func escape() {
        #expect(TerminalText.escape("a\u{2028}b\u{2029}c\u{061C}d") == #"a\u{2028}b\u{2029}c\u{61c}d"#)
    }

    @Test("names with U+2028 and U+2029 are escaped in the human format and with --format")
    func names() throws {
        // One escaped in the JSON text, one raw: both are valid JSON.
        let line =
            #"{"t":0,"keyboard":{"id":"x11:0x1","name":"evil\u2028name","kind":"keyboard"},"frame":{"x":0,"y":560,"width":1280,"height":240},"output":{"name":"scr"#
            + "\u{2029}"
            + #"een","x":0,"y":0,"width":1280,"height":800},"geometry":"reported"}"# + "\n"
        let path = Recordings.write(text: line)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let human = try Kbwatch.run(["--replay", path, "--speed", "max"])
        #expect(human.status == 0 && human.lines.count == 2)
        #expect(!hasSeparator(human.stdout), "\(human.stdout)")
        #expect(human.lines[1].contains(#"evil\u{2028}name"#) && human.lines[1].contains(#"scr\u{2029}een"#))
        let format = try Kbwatch.run(["--replay", path, "--speed", "max", "--format", "%n|%o|%i"])
        #expect(format.status == 0 && format.lines.count == 2)
        #expect(!hasSeparator(format.stdout), "\(format.stdout)")
        let json = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        #expect(!hasSeparator(json.stdout) && json.stdout.contains(#"evil\u2028name"#))
    }

    @Test("what a keyboard service's peer said (an error's text) reaches a --state line escaped")
    func serviceProblem() {
        let report = KeyboardServiceReport(
            name: "squeekboard", address: "sm.puri.OSK0 on the session bus",
            state: KeyboardServiceState(
                status: .running, isVisible: nil, pid: 42, problem: "refused: \u{1B}[2J\u{2028}gone"))
        let lines = HumanWriter().lines(forState: [], services: [report])
        #expect(lines.count == 1)
        #expect(!hasSeparator(lines[0]) && !lines[0].unicodeScalars.contains("\u{1B}"), "\(lines)")
    }

    @Test("an error message quoting a value with U+2028 shows it escaped")
    func errorMessage() throws {
        let line =
            #"{"t":0,"keyboard":{"id":"x11:0x1","name":"n","kind":"robot"# + "\u{2028}"
            + #""},"frame":null,"geometry":"reported"}"# + "\n"
        let path = Recordings.write(text: line)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max"])
        #expect(result.status == 5)
        #expect(result.stderr.contains("line 1: field 'keyboard.kind' has an unknown value"), "\(result.stderr)")
        #expect(!hasSeparator(result.stderr), "\(result.stderr)")
    }
}
