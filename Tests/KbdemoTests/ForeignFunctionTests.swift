import Foundation
import TestSupport
import Testing

/// The package defines no function of another library. kbdemo links libX11 (through Xft) beside
/// the package, as a GTK or SDL app does, and kbforeign links libX11 and libsystemd: were one of
/// those libraries' functions defined in them, every library of the process would call that copy
/// instead of the library's own. kbwatch links none of them: it loads the X libraries when an X
/// display is first used and libsystemd when a session bus is, and calls them under its own names.
@Suite("no function of the X libraries or libsystemd defined by the package")
struct ForeignFunctionTests {
    /// The libraries the backends call, by the name the dynamic loader knows them by.
    static let libraries = [
        "libX11.so.6", "libX11-xcb.so.1", "libXrandr.so.2", "libXRes.so.1", "libxkbcommon.so.0",
        "libxkbcommon-x11.so.0", "libsystemd.so.0",
    ]

    /// The directories a library of `libraries` is looked for in.
    static let libraryDirectories = [
        "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
    ]

    /// Runs `nm` with `arguments` and returns each defined function's name (its version, if any,
    /// left off): symbols of type T, t, W, w or i.
    static func definedFunctions(_ arguments: [String]) throws -> Set<String> {
        let (status, output) = try Programs.run("nm", ["--defined-only"] + arguments)
        guard status == 0 else {
            throw TestFailure("nm --defined-only \(arguments.joined(separator: " ")) exited \(status)")
        }
        var names: Set<String> = []
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, ["T", "t", "W", "w", "i"].contains(fields[1]) else { continue }
            names.insert(String(fields[2].prefix { $0 != "@" }))
        }
        return names
    }

    /// Every function the libraries export, each with the library that defines it.
    static func libraryFunctions() throws -> [String: String] {
        var functions: [String: String] = [:]
        for library in libraries {
            let path = try #require(
                libraryDirectories.map { $0 + "/" + library }.first { FileManager.default.fileExists(atPath: $0) },
                "\(library) is not installed")
            for name in try definedFunctions(["-D", path]) { functions[name] = library }
        }
        return functions
    }

    /// The programs SwiftPM built next to the test bundle.
    static func built(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: DemoWorld.binary).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw TestFailure("\(path) is not built") }
        return path
    }

    @Test(
        "kbdemo and kbforeign, which link libX11 (and libsystemd) themselves, and kbwatch define none of the libraries' functions",
        arguments: ["kbdemo", "kbforeign", "kbwatch"])
    func noneDefined(program: String) throws {
        guard try Programs.ready(["nm"]) else { return }
        let functions = try Self.libraryFunctions()
        // libX11 alone exports over a thousand, libsystemd over 500: far fewer means the libraries
        // were not read.
        #expect(functions.count > 1_500)
        #expect(functions["sd_bus_call"] == "libsystemd.so.0")
        let binary = try Self.built(program)
        for arguments in [[binary], ["-D", binary]] {
            let defined = try Self.definedFunctions(arguments).filter { functions[$0] != nil }.sorted()
            #expect(
                defined.isEmpty,
                """
                nm --defined-only \(arguments.joined(separator: " ")) shows \(defined.count) functions of \
                the libraries: \(defined.map { "\($0) (\(functions[$0]!))" }.joined(separator: ", "))
                """)
        }
    }

    @Test("kbwatch links no X library and not libsystemd: it loads them when first used")
    func kbwatchLoadsThemLater() throws {
        guard try Programs.ready(["readelf"]) else { return }
        let (status, dynamic) = try Programs.run("readelf", ["-d", try Self.built("kbwatch")])
        #expect(status == 0)
        let needed = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.count >= 2, "\(dynamic)")
        let loadedLater = Self.libraries.filter { $0 != "libxkbcommon.so.0" }
        for line in needed {
            #expect(!loadedLater.contains { line.contains("[\($0)]") }, "\(line)")
        }
    }

    @Test("an app's own sd-bus calls work before and after the package's, beside a manager")
    func appCallsSdBusFirst() throws {
        guard try Programs.ready(["Xvfb", "dbus-daemon"]) else { return }
        let session = try X11Session()
        defer { session.stop() }
        let bus = try SessionBus(directory: session.directory, home: session.directory + "/home")
        defer { bus.stop() }
        let id = try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetId")
        let app = try Self.built("kbforeign")
        let (status, output) = try Programs.run(
            app, [], environment: session.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        let lines = output.split(separator: "\n").map(String.init)
        #expect(status == 0, "kbforeign exited \(status): \(output)")
        #expect(lines.first == "display: opened", "\(output)")
        let before = try #require(lines.first { $0.hasPrefix("before: ") }, "\(output)").dropFirst(8)
        #expect(before.count == 32 && id.contains(before), "the bus's id \(id), the app's \(before)")
        #expect(lines.contains("manager: x11"), "\(output)")
        #expect(lines.contains("after: \(before)"), "\(output)")
    }
}
