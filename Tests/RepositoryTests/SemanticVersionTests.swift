import Foundation
import TestSupport
import Testing

/// `scripts/api` against records made up for the purpose: a change to the public surface passes
/// only where the version announces it.
@Suite("scripts/api holds the public surface to semantic versioning", .serialized)
struct SemanticVersionTests {
    static let root = DocumentationTests.root.path

    /// The version being made: kbwatch's.
    static func version() throws -> (major: Int, minor: Int, patch: Int) {
        let usage = try String(contentsOfFile: root + "/Sources/kbwatch/Usage.swift", encoding: .utf8)
        let match = try #require(usage.firstMatch(of: /static let version = "kbwatch (\d+)\.(\d+)\.(\d+)"/))
        return (Int(match.output.1)!, Int(match.output.2)!, Int(match.output.3)!)
    }

    /// Runs scripts/api against a copy of API/ at `recorded`, changed by `edit` (module, lines).
    static func check(recorded: String, edit: (inout [String: [String]]) -> Void) throws -> (Int32, String) {
        let directory = NSTemporaryDirectory() + "api-baseline-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var records: [String: [String]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: root + "/API") where file.hasSuffix(".api") {
            let text = try String(contentsOfFile: root + "/API/" + file, encoding: .utf8)
            records[String(file.dropLast(4))] = text.split(separator: "\n").map(String.init)
        }
        edit(&records)
        for (module, lines) in records {
            try (lines.sorted().joined(separator: "\n") + "\n").write(
                toFile: directory + "/" + module + ".api", atomically: true, encoding: .utf8)
        }
        try (recorded + "\n").write(toFile: directory + "/VERSION", atomically: true, encoding: .utf8)
        return try Shell.run(root + "/scripts/api", ["--baseline", directory], timeout: 900)
    }

    @Test(
        "a declaration gone from the app's API fails unless the version is a new major one; the CHANGELOG must name it")
    func breakingChange() throws {
        let now = try Self.version()
        let gone: (inout [String: [String]]) -> Void = {
            $0["KeyboardAdapterCore", default: []].append("GoneType :: struct GoneType")
        }
        let same = try Self.check(recorded: "\(now.major).\(now.minor).\(now.patch)", edit: gone)
        #expect(same.0 != 0, "\(same.1)")
        #expect(same.1.contains("KeyboardAdapterCore: 1 declaration(s) gone or changed"), "\(same.1)")
        #expect(same.1.contains("does not announce"), "\(same.1)")
        // An older major version: the version announces it, and only the CHANGELOG's word is missing.
        let older = try Self.check(recorded: "0.0.1", edit: gone)
        #expect(older.0 != 0, "\(older.1)")
        #expect(!older.1.contains("does not announce"), "\(older.1)")
        #expect(older.1.contains("`GoneType` is gone or changed; say so in CHANGELOG.md"), "\(older.1)")
    }

    @Test(
        "a declaration added fails unless the version is a new minor one; the backends' interface may break in a minor")
    func additionsAndInterface() throws {
        let now = try Self.version()
        let current = "\(now.major).\(now.minor).\(now.patch)"
        // The record lacks one of the app's declarations: it was added since.
        let added: (inout [String: [String]]) -> Void = { $0["KeyboardAdapterCore"]?.removeFirst() }
        let same = try Self.check(recorded: current, edit: added)
        #expect(same.0 != 0 && same.1.contains("added since \(current)"), "\(same.1)")
        if now.minor > 0 {
            let previous = try Self.check(recorded: "\(now.major).\(now.minor - 1).0", edit: added)
            #expect(previous.0 == 0, "\(previous.1)")
            #expect(previous.1.contains("KeyboardAdapterCore: + "), "\(previous.1)")
        } else {
            let previous = try Self.check(recorded: "\(now.major - 1).9.0", edit: added)
            #expect(previous.0 == 0, "\(previous.1)")
        }
        // A declaration gone from the backends' interface at the same version fails; a minor earlier,
        // only the CHANGELOG's word is missing.
        let interface: (inout [String: [String]]) -> Void = {
            $0["KeyboardBackendInterface", default: []].append("GoneHook :: protocol GoneHook")
        }
        let unannounced = try Self.check(recorded: current, edit: interface)
        #expect(unannounced.0 != 0 && unannounced.1.contains("does not announce"), "\(unannounced.1)")
        let minor = now.minor > 0 ? "\(now.major).\(now.minor - 1).0" : "\(now.major - 1).9.0"
        let announced = try Self.check(recorded: minor, edit: interface)
        #expect(!announced.1.contains("does not announce"), "\(announced.1)")
        #expect(announced.1.contains("`GoneHook` is gone or changed"), "\(announced.1)")
    }
}
