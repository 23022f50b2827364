import Foundation

/// Validates JSON lines against the repository's schema for kbwatch (`schema/kbwatch-1.schema.json`)
/// with `schema/validate.py`, run by Debian's python3 with python3-jsonschema.
public enum SchemaValidator {
    /// The repository's root, found from this file's place in it.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The validation script.
    public static var script: String { repository.appendingPathComponent("schema/validate.py").path }

    /// Whether python3 with jsonschema is there. Outside CI a missing one skips the running test
    /// (`Programs.skip(_:)`); under CI it throws.
    public static func ready() throws -> Bool {
        let found = (try? Programs.run("/usr/bin/python3", ["-c", "import jsonschema"]).status) == 0
        if !found { try Programs.skip("python3-jsonschema is missing") }
        return found
    }

    /// What validation said: the exit status (0: every line valid) and the script's report.
    public struct Report: Sendable {
        /// 0 when every line is valid and there was at least one.
        public var status: Int32
        /// One line per invalid line, then `N lines checked, N invalid`.
        public var output: String
    }

    /// Validates `lines` (each one JSON object); `kind` names one definition of the schema
    /// (`event`, `progress`, `state`, `recordingLine`), nil lets each line's shape choose.
    public static func validate(_ lines: [String], kind: String? = nil) throws -> Report {
        let path = NSTemporaryDirectory() + "kbwatch-schema-\(UUID().uuidString).jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let arguments = [script] + (kind.map { ["--kind", $0] } ?? []) + [path]
        let result = try Programs.run("/usr/bin/python3", arguments, timeout: 60)
        return Report(status: result.status, output: result.output)
    }
}
