import Foundation
import TestSupport
import Testing

/// The compositor-side companions are files of their own in Companions/ (kbwatch carries their
/// text, read from them at build time by the EmbeddedTexts plugin): what they name agrees with
/// kbwatch and the backends.
@Suite("companions")
struct CompanionTests {
    @Test("the KWin script has the placeholder kbwatch puts its unique bus name in")
    func kwinScriptReceiver() throws {
        let file = try String(
            contentsOf: DocumentationTests.root.appendingPathComponent("Companions/kwin/keyboard-adapter.js"),
            encoding: .utf8)
        #expect(file.contains("\"@RECEIVER@\""))
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
}
