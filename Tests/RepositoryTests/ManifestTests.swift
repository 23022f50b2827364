import Foundation
import TestSupport
import Testing

extension DocumentationTests {
    @Test("the README's Package.swift loads, with this repository beside it in a folder named KeyboardAdapter")
    func readmeManifestLoads() throws {
        let manifests = try Self.readmeSwiftBlocks().filter(Self.isManifest)
        #expect(manifests.count == 1)
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("readme-manifest-\(getpid())")
        defer { try? FileManager.default.removeItem(at: base) }
        let app = base.appendingPathComponent("MyApp")
        try FileManager.default.createDirectory(
            at: app.appendingPathComponent("Sources/MyApp"), withIntermediateDirectories: true)
        // The path dependency's package is named after its folder, so the folder is a link named
        // KeyboardAdapter whatever this checkout is called.
        try FileManager.default.createSymbolicLink(
            at: base.appendingPathComponent("KeyboardAdapter"), withDestinationURL: Self.root)
        for manifest in manifests {
            try (manifest.joined(separator: "\n") + "\n").write(
                to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            try "import KeyboardAdapter\n".write(
                to: app.appendingPathComponent("Sources/MyApp/main.swift"), atomically: true, encoding: .utf8)
            // show-dependencies loads the package graph: an unknown package or product fails it.
            let swift = Process()
            swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            swift.arguments = ["swift", "package", "--package-path", app.path, "show-dependencies"]
            let output = Pipe()
            swift.standardOutput = output
            swift.standardError = output
            try Programs.start(swift)
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            swift.waitUntilExit()
            try? output.fileHandleForReading.close()
            #expect(swift.terminationStatus == 0, "\(text)")
        }
    }
}
