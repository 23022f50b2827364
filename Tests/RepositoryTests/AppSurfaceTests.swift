import Foundation
import Testing

/// What an app that imports `KeyboardAdapter` can name, and what only a backend can: small apps
/// are type-checked against the modules this test run was built with. The run loop, its sources,
/// the clocks and a backend's run do not compile in an app; the same calls compile in a backend
/// that imports the backends' interface, as the backend outside the package does (built and run
/// here on its own package).
@Suite("the app's API apart from the backends'")
struct AppSurfaceTests {
    static let root = DocumentationTests.root.path

    /// `swiftc -typecheck` of `source` against the debug build's modules: its exit status and
    /// diagnostics.
    static func typecheck(_ source: String, named name: String = "App") throws -> (status: Int32, output: String) {
        let directory = NSTemporaryDirectory() + "kbadapter-surface-\(getpid())/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = "\(directory)/\(name).swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        return try run(
            "/usr/bin/env",
            ["swiftc", "-typecheck", "-swift-version", "6", "-module-name", name] + searchPaths() + [file])
    }

    /// Where the build's Swift modules and the C modules they import are, as scripts/api finds them.
    static func searchPaths() throws -> [String] {
        let bin = try run("/usr/bin/env", ["swift", "build", "--show-bin-path"], in: root).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var paths = ["-I", "\(bin)/Modules", "-I", bin]
        let fileManager = FileManager.default
        for source in try fileManager.contentsOfDirectory(atPath: "\(root)/Sources").sorted()
        where fileManager.fileExists(atPath: "\(root)/Sources/\(source)/module.modulemap") {
            paths += ["-I", "\(root)/Sources/\(source)"]
        }
        for build in try fileManager.contentsOfDirectory(atPath: bin).sorted() where build.hasSuffix(".build") {
            let map = "\(bin)/\(build)/module.modulemap"
            if fileManager.fileExists(atPath: map) { paths += ["-Xcc", "-fmodule-map-file=\(map)"] }
        }
        return paths
    }

    /// Runs a program to its end, its standard error with its output.
    static func run(_ program: String, _ arguments: [String], in directory: String? = nil) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        try? pipe.fileHandleForReading.close()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("an app that imports KeyboardAdapter compiles with the manager, its testing backend and the values")
    func appCompiles() throws {
        let result = try Self.typecheck(
            """
            import KeyboardAdapter
            import KeyboardAdapterTesting

            let backend = InMemoryBackend()
            let manager = KeyboardManager(backend: backend)
            backend.observe(KeyboardIdentity(id: "a", name: "osk"), frame: Rect(x: 0, y: 500, width: 800, height: 100))
            let insets: EdgeInsets = manager.insets(forWindow: Rect(x: 0, y: 0, width: 800, height: 600))
            let failure: BackendFailure? = nil
            let edge: Edge = .bottom
            manager.setAppIdentity(AppIdentity.currentProcess)
            print(insets, failure as Any, edge, manager.capabilities.contains(.reportsFrames))
            """)
        #expect(result.status == 0, "\(result.output)")
    }

    /// Each line names what only a backend may use; the app around it compiles without it
    /// (`appCompiles`), so the error is that line's.
    @Test(
        "an app that imports KeyboardAdapter cannot name the run loop, the clocks, the environment or a backend's run",
        arguments: [
            ("let loop: KeyboardRunLoop? = nil", "cannot find type 'KeyboardRunLoop' in scope"),
            ("let context: LoopContext? = nil", "cannot find type 'LoopContext' in scope"),
            ("let source: (any LoopSource)? = nil", "cannot find type 'LoopSource' in scope"),
            ("let sink: (any ObservationSink)? = nil", "cannot find type 'ObservationSink' in scope"),
            ("let now = MonotonicClock.now()", "cannot find 'MonotonicClock' in scope"),
            ("let clock = LiveClock()", "cannot find 'LiveClock' in scope"),
            ("let environment = ProcessEnvironment.current", "cannot find 'ProcessEnvironment' in scope"),
            (
                "let open = InMemoryBackend().open(in:sink:app:)",
                "'open' is inaccessible due to '@_spi' protection level"
            ),
            (
                "let open = KeyboardAdapterBackends.x11.make().open(in:sink:app:)",
                "'open' is inaccessible due to '@_spi' protection level"
            ),
            ("let run: (any BackendConnection)? = nil", "cannot find type 'BackendConnection' in scope"),
            (
                "KeyboardManager.writeToStandardError(\"x\")",
                "'writeToStandardError' is inaccessible due to 'package' protection level"
            ),
        ])
    func backendNamesDoNotCompile(line: String, error: String) throws {
        let result = try Self.typecheck(
            """
            import KeyboardAdapter
            import KeyboardAdapterTesting

            \(line)
            """)
        #expect(result.status != 0, "compiled in an app: \(line)")
        #expect(result.output.contains("error: \(error)"), "\(result.output)")
    }

    @Test("the backend outside the package type-checks against the backends' interface")
    func outsideBackendCompiles() throws {
        let sources = "\(Self.root)/Examples/outside-backend/Sources/outsidebackend"
        let files = try FileManager.default.contentsOfDirectory(atPath: sources).sorted().map { "\(sources)/\($0)" }
        #expect(files.count == 2)
        let result = try Self.run(
            "/usr/bin/env",
            ["swiftc", "-typecheck", "-swift-version", "6", "-module-name", "outsidebackend"] + Self.searchPaths()
                + files)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("the backend outside the package, built on its own package, delivers to a KeyboardManager")
    func outsideBackendRuns() throws {
        let scratch = "\(Self.root)/.build/outside-backend"
        let build = try Self.run(
            "/usr/bin/env",
            ["swift", "build", "--package-path", "Examples/outside-backend", "--scratch-path", scratch],
            in: Self.root)
        #expect(build.status == 0, "\(build.output)")
        guard build.status == 0 else { return }
        let bin = try Self.run(
            "/usr/bin/env",
            [
                "swift", "build", "--package-path", "Examples/outside-backend", "--scratch-path", scratch,
                "--show-bin-path",
            ],
            in: Self.root
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try Self.run("\(bin)/outsidebackend", [])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("didShow scripted:1 0,560 1280x240"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("didHide scripted:1") }, "\(lines)")
        #expect(lines.last == "ended", "\(lines)")
    }
}
