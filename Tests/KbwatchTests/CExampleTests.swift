import Foundation
import TestSupport
import Testing

/// The C example (`Examples/c/kbbar.c`, GTK 3 on libkeyboard-adapter, fed by the session service),
/// built with the command its first comment gives against the library `KeyboardAdapterLibrary`
/// builds (its uninstalled pkg-config file), then run headless against xvkbd with the checks of
/// the Python example's service mode (see `ExampleBar`).
@Suite("C example: kbbar")
struct CExampleTests {
    static let source = SchemaValidator.repository.appendingPathComponent("Examples/c/kbbar.c").path

    /// Builds kbbar into `directory` with the `cc ...` line of the source's first comment (the
    /// README's), and returns the program's path; nil when the test is skipped (no C compiler,
    /// no libgtk-3-dev or the library's build tools, which under CI is a failure).
    static func build(into directory: String) throws -> String? {
        guard try Programs.ready(["cc", "pkg-config"]), try KeyboardAdapterLibrary.ready() else { return nil }
        guard try Programs.run("pkg-config", ["--exists", "gtk+-3.0"]).status == 0 else {
            try Programs.skip("libgtk-3-dev is missing (pkg-config knows no gtk+-3.0)")
            return nil
        }
        let text = try String(contentsOfFile: source, encoding: .utf8)
        let line = try #require(
            text.split(separator: "\n").lazy.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " *")) }
                .first { $0.hasPrefix("cc ") },
            "kbbar.c documents its build line")
        let program = directory + "/kbbar"
        var command = line.replacing("-o kbbar ", with: "-o '\(program)' ")
        command = command.replacing("Examples/c/kbbar.c", with: "'\(source)'")
        #expect(command.contains(program) && command.contains(source), "\(command)")
        let built = try Programs.run(
            "/bin/sh", ["-c", command + " 2>&1"], environment: KeyboardAdapterLibrary.pkgConfigEnvironment,
            timeout: 120)
        #expect(built.status == 0, "\(command):\n\(built.output)")
        #expect(built.output.isEmpty, "warnings from \(command):\n\(built.output)")
        return built.status == 0 ? program : nil
    }

    @Test(
        "libkeyboard-adapter starts the session service, the bar follows xvkbd, survives the service's death, and the service ends once kbbar has"
    )
    func service() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", "dbus-send"]) else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        guard let program = try Self.build(into: world.session.directory) else { return }
        try ExampleBar.followsKeyboardThroughService(in: world) {
            try world.session.start(
                program, ExampleBar.window,
                environment: world.environment.merging(KeyboardAdapterLibrary.environment) { $1 })
        }
    }

    @Test("bad options: exit 2 with the usage; --help: exit 0")
    func options() throws {
        let directory = NSTemporaryDirectory() + "kbbar-c-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let program = try Self.build(into: directory) else { return }
        for bad in [
            ["--size", "800"], ["--position", "1,2,3"], ["--size"], ["--colour", "red"], ["--size", "0x10"],
        ] {
            let result = try Programs.run(
                program, bad, environment: KeyboardAdapterLibrary.environment.merging(["DISPLAY": nil]) { $1 })
            #expect(result.status == 2, "\(bad)")
        }
        let help = try Programs.run(
            program, ["--help"], environment: KeyboardAdapterLibrary.environment.merging(["DISPLAY": nil]) { $1 })
        #expect(help.status == 0 && help.output.hasPrefix("usage: kbbar [--position X,Y] [--size WxH]"))
    }
}
