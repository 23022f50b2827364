import Foundation
import TestSupport
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

    @Test("the session service introspects as Interfaces/org.keyboardadapter.Watcher2.xml, byte for byte")
    func serviceInterfaceEmbedded() throws {
        try Self.expectEmbedded(
            "Interfaces/org.keyboardadapter.Watcher2.xml",
            in: "Sources/KeyboardSessionService/SessionServiceNames.swift")
    }

    @Test(
        "the GNOME Shell extension kbwatch installs is Companions/gnome-shell and its interface XML, byte for byte",
        arguments: [
            ("legacyHead", "Companions/gnome-shell/legacy/extension.js"),
            ("legacyMetadata", "Companions/gnome-shell/legacy/metadata.json"),
            ("modulesHead", "Companions/gnome-shell/modules/extension.js"),
            ("modulesMetadata", "Companions/gnome-shell/modules/metadata.json"),
            ("body", "Companions/gnome-shell/keyboard-export.js"),
            ("interfaceXML", "Interfaces/org.keyboardadapter.GnomeShell1.xml"),
        ])
    func gnomeExtensionEmbedded(name: String, file: String) throws {
        let root = DocumentationTests.root
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let swift = try String(
            contentsOf: root.appendingPathComponent("Sources/kbwatch/GnomeExtensionFiles.swift"), encoding: .utf8)
        let start = try #require(swift.range(of: "static let \(name) = #\"\"\"\n"))
        let end = try #require(swift.range(of: "\n        \"\"\"#", range: start.upperBound..<swift.endIndex))
        let embedded = swift[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
        #expect(embedded == text, "\(name) and \(file) differ")
    }

    @Test("the extension, the backend and kbwatch name one release and one revision")
    func gnomeExtensionRelease() throws {
        let root = DocumentationTests.root
        func read(_ path: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }
        let release = try #require(
            try read("Sources/kbwatch/Usage.swift").firstMatch(of: /kbwatch (\d+\.\d+\.\d+)/)?.1)
        #expect(try read("Companions/gnome-shell/keyboard-export.js").contains("const RELEASE = '\(release)';"))
        let revision = try #require(
            try read("Companions/gnome-shell/keyboard-export.js").firstMatch(of: /const REVISION = (\d+);/)?.1)
        #expect(
            try read("Interfaces/org.keyboardadapter.GnomeShell1.xml").contains(
                "This interface's revision: \(revision)"))
        for metadata in ["legacy", "modules"] {
            #expect(
                try read("Companions/gnome-shell/\(metadata)/metadata.json").contains(
                    "\"version-name\": \"\(release)\""))
        }
        #expect(try read("Sources/KeyboardServices/GnomeShellProbe.swift").contains("release = \"\(release)\""))
        #expect(try read("Sources/KeyboardServices/GnomeShellProbe.swift").contains("revision: UInt32 = \(revision)"))
        #expect(try read("Sources/kbwatch/GnomeExtensionInstaller.swift").contains("release = \"\(release)\""))
    }

    @Test(
        "the extension's metadata names every GNOME Shell major version from 43 to the backend's newest, each once, and every stack the tests run"
    )
    func gnomeShellVersions() throws {
        let root = DocumentationTests.root
        func majors(_ flavour: String) throws -> [Int] {
            let text = try String(
                contentsOf: root.appendingPathComponent("Companions/gnome-shell/\(flavour)/metadata.json"),
                encoding: .utf8)
            let list = try #require(text.firstMatch(of: /"shell-version": \[([^\]]*)\]/)?.1)
            return list.split(separator: ",").compactMap { Int($0.filter(\.isNumber)) }
        }
        let named = try majors("legacy") + majors("modules")
        let probe = try String(
            contentsOf: root.appendingPathComponent("Sources/KeyboardServices/GnomeShellProbe.swift"), encoding: .utf8)
        let range = try #require(probe.firstMatch(of: /supportedMajors = (\d+)\.\.\.(\d+)/))
        let supported = Array(try #require(Int(range.1))...(try #require(Int(range.2))))
        #expect(named == supported, "the metadata names \(named); the backend says \(supported)")
        // A stack whose GNOME Shell the metadata does not name would see the extension refused:
        // a new GNOME is noticed here the day a userland carries it (GnomeTests checks the shell's
        // own version against this list too).
        for stack in Stack.allCases {
            #expect(named.contains(stack.gnomeShellMajor), "\(stack) runs GNOME Shell \(stack.gnomeShellMajor)")
        }
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
