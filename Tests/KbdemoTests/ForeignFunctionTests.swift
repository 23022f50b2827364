import Foundation
import TestSupport
import Testing

/// The package defines no function of another library. kbdemo links libX11 (through Xft) beside
/// the package, as a GTK or SDL app does: were one of the X libraries' functions defined in it,
/// every library of the process would call that copy instead of the library's own. kbwatch links
/// none of the X libraries: it loads them when an X display is first used, under its own names.
@Suite("no function of the X libraries defined by the package")
struct ForeignFunctionTests {
    /// The X libraries the X11 backend calls, by the name the dynamic loader knows them by.
    static let libraries = [
        "libX11.so.6", "libX11-xcb.so.1", "libXrandr.so.2", "libXRes.so.1", "libxkbcommon.so.0",
        "libxkbcommon-x11.so.0",
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

    /// Every function the X libraries export, each with the library that defines it.
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
        "kbdemo, which links libX11 itself, and kbwatch define none of the X libraries' functions",
        arguments: ["kbdemo", "kbwatch"])
    func noneDefined(program: String) throws {
        guard try Programs.ready(["nm"]) else { return }
        let functions = try Self.libraryFunctions()
        // libX11 alone exports over a thousand: far fewer means the libraries were not read.
        #expect(functions.count > 1_000)
        let binary = try Self.built(program)
        for arguments in [[binary], ["-D", binary]] {
            let defined = try Self.definedFunctions(arguments).filter { functions[$0] != nil }.sorted()
            #expect(
                defined.isEmpty,
                """
                nm --defined-only \(arguments.joined(separator: " ")) shows \(defined.count) functions of \
                the X libraries: \(defined.map { "\($0) (\(functions[$0]!))" }.joined(separator: ", "))
                """)
        }
    }

    @Test("kbwatch links no X library: it loads them when an X display is first used")
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
}
