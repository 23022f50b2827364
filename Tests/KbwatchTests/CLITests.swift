import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

@Suite("kbwatch: options, exit codes and errors")
struct CLITests {
    @Test("--help describes every option, the format fields and the exit codes")
    func help() throws {
        let result = try Kbwatch.run(["--help"])
        #expect(result.status == 0)
        for option in [
            "--json", "--format", "--backend", "--list-backends", "--doctor", "--state", "--pid", "--window",
            "--app-id", "--record", "--replay", "--speed", "--settle", "--help", "--version",
        ] {
            #expect(result.stdout.contains(option), "help lacks \(option)")
        }
        for code in 0...9 { #expect(result.stdout.contains("  \(code)  "), "help lacks exit code \(code)") }
        #expect(result.stdout.contains("%e"))
    }

    @Test("--version prints one line")
    func version() throws {
        let result = try Kbwatch.run(["--version"])
        #expect(result.status == 0 && result.lines.count == 1 && result.stdout.hasPrefix("kbwatch "))
    }

    @Test(
        "bad arguments exit 2 with a one-line reason and a pointer to --help",
        arguments: [
            (["--bogus"], "unknown option '--bogus'"),
            (["--settle", "soon"], "--settle needs milliseconds from 0 to 10000, not 'soon'"),
            (["--pid", "-3"], "--pid needs a process id, not '-3'"),
            (["--pid", "abc"], "--pid needs a process id, not 'abc'"),
            (["--window", "0xZZ"], "--window needs a window id (decimal or 0x hex), not '0xZZ'"),
            (["--app-id", ""], "--app-id needs an app id of 1 to 256 bytes"),
            (
                ["--app-id", String(repeating: "a", count: 257)],
                "--app-id needs an app id of 1 to 256 bytes, not one of 257"
            ),
            (["--speed", "2"], "--speed only applies to --replay"),
            (["--state", "--doctor"], "--state and --doctor cannot be used together"),
            (["--format"], "--format needs a value"),
            (["stray"], "unexpected argument 'stray'"),
            (["--backend", "quartz"], "unknown backend 'quartz' (known: x11, wayland, kwin, gnome)"),
            (
                ["--replay", "r", "--speed", "1e-300"],
                "--speed needs a factor from 0.01 to 10000 or 'max', not '1e-300'"
            ),
            (["--replay", "r", "--speed", "0"], "--speed needs a factor from 0.01 to 10000 or 'max', not '0'"),
            (["--replay", "r", "--speed", "20000"], "--speed needs a factor from 0.01 to 10000 or 'max', not '20000'"),
            (["--json", "--format", "%e"], "--json and --format cannot be used together"),
            (["--format", "%e", "--json"], "--format and --json cannot be used together"),
            (["--format", "%e", "--format", "%k"], "--format can be given once"),
            (["--json", "--json"], "--json can be given once"),
        ])
    func badArguments(arguments: [String], reason: String) throws {
        let result = try Kbwatch.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr == "kbwatch: \(reason)\nTry 'kbwatch --help'.\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("no display server reachable exits 3 and says why")
    func noDisplayServer() throws {
        let result = try Kbwatch.run(
            [], environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil, "KEYBOARD_ADAPTER_BACKEND": nil])
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("kbwatch: no display server is reachable: "))
        #expect(result.stderr.contains("DISPLAY is not set") && result.stderr.contains("WAYLAND_DISPLAY is not set"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a display that does not answer exits 3 too")
    func deadDisplay() throws {
        let result = try Kbwatch.run(["--backend", "x11"], environment: ["DISPLAY": ":987"])
        #expect(result.status == 3)
        #expect(result.stderr.contains(":987"))
    }

    @Test("--list-backends lists each backend, available or not, and why")
    func listBackends() throws {
        let result = try Kbwatch.run(["--list-backends"], environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil])
        #expect(result.status == 0)
        try #require(result.lines.count == 5)
        #expect(result.lines[0].hasPrefix("x11: no display server: "))
        #expect(result.lines[1].hasPrefix("wayland: no display server: "))
        #expect(result.lines[2].hasPrefix("kwin: no display server: "))
        // No GNOME Shell on the bus (or no bus at all): not a GNOME session.
        #expect(result.lines[3].hasPrefix("gnome: no display server: "), "\(result.lines[3])")
        #expect(result.lines[4] == "replay: available with --replay FILE")
    }

    @Test("--doctor explains the session even without a display server")
    func doctorWithoutDisplay() throws {
        let result = try Kbwatch.run(["--doctor"], environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil])
        #expect(result.status == 0)
        #expect(result.stdout.contains("DISPLAY=(unset)"))
        #expect(result.stdout.contains("x11: no display server"))
        #expect(result.stdout.contains("can see: "))
        #expect(result.stdout.contains("kbwatch cannot watch here: no display server is reachable"))
    }

    @Test("an unreadable recording exits 5 naming the file")
    func unreadableRecording() throws {
        let result = try Kbwatch.run(["--replay", "/nonexistent/rec.jsonl"])
        #expect(result.status == 5)
        #expect(result.stderr == "kbwatch: cannot read /nonexistent/rec.jsonl\n")
    }

    @Test("a malformed recording exits 5 after printing the events before the bad line")
    func malformedRecording() throws {
        let path = Recordings.write(Recordings.showMoveHide, extraLines: [#"{"t":1,"keyboard":"#])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        #expect(result.status == 5)
        #expect(result.stderr == "kbwatch: replay: line 4: not valid JSON\n")
        try #require(result.lines.count == 6)
    }
}
