import Foundation
import Testing

/// The compositor-side companions are files of their own in Companions/, and kbwatch carries the
/// same text: the two never drift apart.
@Suite("companions")
struct CompanionTests {
    @Test("the KWin script kbwatch loads is Companions/kwin/keyboard-adapter.js, byte for byte")
    func kwinScriptEmbedded() throws {
        let root = DocumentationTests.root
        let file = try String(
            contentsOf: root.appendingPathComponent("Companions/kwin/keyboard-adapter.js"), encoding: .utf8)
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/KeyboardServices/KWinCompanionScript.swift"),
            encoding: .utf8)
        let start = try #require(source.range(of: "#\"\"\"\n"))
        let end = try #require(source.range(of: "        \"\"\"#", options: .backwards))
        // The literal is indented by eight spaces, which Swift strips.
        let embedded = source[start.upperBound..<end.lowerBound].split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
        #expect(embedded == file)
        #expect(file.contains("\"@RECEIVER@\""))
    }

    @Test("the session service introspects as Interfaces/org.keyboardadapter.Watcher1.xml, byte for byte")
    func serviceInterfaceEmbedded() throws {
        try Self.expectEmbedded(
            "Interfaces/org.keyboardadapter.Watcher1.xml",
            in: "Sources/KeyboardSessionService/SessionServiceNames.swift")
    }

    /// The raw string literal in `source` (indented by eight spaces, which Swift strips) is `file`.
    static func expectEmbedded(_ file: String, in source: String) throws {
        let root = DocumentationTests.root
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let swift = try String(contentsOf: root.appendingPathComponent(source), encoding: .utf8)
        let start = try #require(swift.range(of: "#\"\"\"\n"))
        let end = try #require(swift.range(of: "        \"\"\"#", options: .backwards))
        let embedded = swift[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
        #expect(embedded == text, "\(source) and \(file) differ")
    }
}
