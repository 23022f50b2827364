import Foundation
import Testing

/// Checks that keep the documentation honest: every public symbol documented, and every kbwatch
/// option in the man page and in the README or a document under docs/.
@Suite("Repository")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func swiftFiles(under directory: String) -> [URL] {
        let base = root.appendingPathComponent(directory)
        let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }

    @Test("every public declaration has a /// doc comment")
    func publicSymbolsDocumented() throws {
        var undocumented: [String] = []
        let files = Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Examples")
        #expect(files.count > 20)
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("public ") || trimmed.hasPrefix("open "),
                    !trimmed.hasPrefix("public import")
                else { continue }
                // Walk up over attributes to the line that should be the end of a doc comment.
                var above = index - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let previous = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
                if !previous.hasPrefix("///") {
                    undocumented.append("\(file.lastPathComponent):\(index + 1): \(trimmed)")
                }
            }
        }
        #expect(undocumented.isEmpty, "undocumented: \(undocumented.joined(separator: "\n"))")
    }

    /// The Markdown documents readers are sent to: the README, then every document under docs/.
    static func documents() -> [URL] {
        let docs = FileManager.default.enumerator(
            at: root.appendingPathComponent("docs"), includingPropertiesForKeys: nil)
        let markdown = (docs?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "md" }
        return [root.appendingPathComponent("README.md")] + markdown.sorted { $0.path < $1.path }
    }

    /// `url`'s path inside the repository, for messages.
    static func relativePath(_ url: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
    }

    @Test("every kbwatch option is in the man page, and in the README or a document under docs/")
    func optionsDocumented() throws {
        let options = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/kbwatch/Options.swift"), encoding: .utf8)
        let flags = Set(options.matches(of: /case "(--[a-z-]+)"/).map { String($0.output.1) })
            .union(options.matches(of: /, "(--[a-z-]+)"/).map { String($0.output.1) })
        #expect(flags.count >= 14)
        let man = try String(contentsOf: Self.root.appendingPathComponent("man/kbwatch.1"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        // The README names the common options; the rest are one link away, in docs/kbwatch.md and
        // its neighbours, so the documents are read as one text.
        let documents = Self.documents()
        #expect(documents.count >= 5)
        let text = try documents.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
        for flag in flags {
            #expect(man.contains(flag), "man page lacks \(flag)")
            #expect(text.contains(flag), "neither the README nor docs/ name \(flag)")
        }
    }
}

extension DocumentationTests {
    /// The Swift blocks of the Markdown document at `url`, each as its lines without indentation or
    /// blank lines.
    static func swiftBlocks(in url: URL) throws -> [[String]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.matches(of: /```swift\n([\s\S]*?)```/).map { lines($0.output.1) }
    }

    /// The README's Swift blocks, each as its lines without indentation or blank lines.
    static func readmeSwiftBlocks() throws -> [[String]] {
        try swiftBlocks(in: root.appendingPathComponent("README.md"))
    }

    /// `text`'s lines, trimmed, without the blank ones.
    static func lines(_ text: Substring) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether a Swift block is a package manifest (checked by loading it, not by compiling it here).
    static func isManifest(_ block: [String]) -> Bool { block.first?.hasPrefix("// swift-tools-version") == true }

    @Test("every QML example of the README and docs/ is lines of the Qt example's Main.qml, in order")
    func qmlExamplesRun() throws {
        // Main.qml is built and run with a real keyboard (QtExampleTests); an example may leave
        // lines out of it, never change or reorder them.
        let main = Self.lines(
            try String(contentsOf: Self.root.appendingPathComponent("Examples/qt/Main.qml"), encoding: .utf8)[...])
        var examples = 0
        for document in Self.documents() {
            let text = try String(contentsOf: document, encoding: .utf8)
            for match in text.matches(of: /```qml\n([\s\S]*?)```/) {
                examples += 1
                var rest = main[...]
                let missing = Self.lines(match.output.1).first { line in
                    guard let found = rest.firstIndex(of: line) else { return true }
                    rest = rest[(found + 1)...]
                    return false
                }
                #expect(missing == nil, "\(Self.relativePath(document)): not in Main.qml as written: \(missing ?? "")")
            }
        }
        #expect(examples >= 1)
    }

    @Test("every Swift example of the README and docs/ stands word for word in compiled code")
    func readmeExamplesCompiled() throws {
        // The README examples, and the GLib example: its block is compiled and run there (kbglib,
        // in DeliveryTests) rather than copied into the README examples.
        let sources =
            [Self.root.appendingPathComponent("Tests/ReadmeExampleTests/ReadmeExamples.swift")]
            + Self.swiftFiles(under: "Examples/glibbar")
        let files = try sources.map { Self.lines(try String(contentsOf: $0, encoding: .utf8)[...]) }
        #expect(files.count >= 3)
        var examples = 0
        for document in Self.documents() {
            let name = Self.relativePath(document)
            for block in try Self.swiftBlocks(in: document) {
                // Only the README's manifest is loaded (ManifestTests): one elsewhere would go unchecked.
                if Self.isManifest(block) {
                    #expect(name == "README.md", "\(name) holds a Package.swift: only the README's is loaded")
                    continue
                }
                examples += 1
                let found = files.contains { file in
                    file.indices.contains { start in
                        start + block.count <= file.count && Array(file[start..<start + block.count]) == block
                    }
                }
                #expect(found, "\(name): example not compiled:\n\(block.joined(separator: "\n"))")
            }
        }
        #expect(examples >= 9)
    }
}

extension DocumentationTests {
    @Test("every public error type explains itself through LocalizedError in its module")
    func errorsDescribed() throws {
        var missing: [String] = []
        let modules = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path)
        for module in modules {
            let texts = try Self.swiftFiles(under: "Sources/\(module)").map {
                try String(contentsOf: $0, encoding: .utf8)
            }
            let all = texts.joined(separator: "\n")
            for match in all.matches(of: /public (?:struct|enum|final class|class) (\w+): Error\b/) {
                let name = String(match.output.1)
                if !all.contains("\(name): LocalizedError") { missing.append("\(module).\(name)") }
            }
        }
        #expect(missing.isEmpty, "public errors without LocalizedError: \(missing.joined(separator: ", "))")
    }
}
