import Foundation
import Testing

/// Every link of the README, the documents under docs/ and the changelog leads somewhere: a
/// relative target names a file or folder of the repository, and a `#fragment` (alone, or after a
/// Markdown file) names a heading of the document it points into, by GitHub's anchor rule. Images
/// are links too. External `http(s)://` targets cannot be fetched here (the tests run without a
/// network), so for them only the form is checked: a well-formed URL with a host. Fenced code
/// blocks and code spans are not prose, so nothing in them counts as a link.
@Suite("links in the README and docs/")
struct LinkTests {
    /// The documents whose links are checked.
    static func documents() -> [URL] {
        DocumentationTests.documents() + [DocumentationTests.root.appendingPathComponent("CHANGELOG.md")]
    }

    @Test("every link and image of the README, docs/ and the changelog resolves")
    func linksResolve() throws {
        let root = Self.normalized(DocumentationTests.root.path)
        let documents = Self.documents()
        #expect(documents.count >= 10)
        // Each target document is read once, however many links point into it.
        var parsed: [String: MarkdownDocument] = [:]
        func document(at path: String) throws -> MarkdownDocument {
            if let known = parsed[path] { return known }
            let document = MarkdownDocument(try String(contentsOfFile: path, encoding: .utf8))
            parsed[path] = document
            return document
        }
        var broken: [String] = []
        var checked = 0
        for url in documents {
            let path = Self.normalized(url.path)
            let source = try document(at: path)
            let name = DocumentationTests.relativePath(url)
            for label in source.undefinedReferences {
                broken.append("\(name): [\(label)] is used but never defined")
            }
            for link in source.links {
                checked += 1
                let problem = try Self.problem(with: link.target, from: path, root: root) {
                    Set(try document(at: $0).anchors)
                }
                if let problem { broken.append("\(name):\(link.line): (\(link.target)) \(problem)") }
            }
        }
        // The README alone has dozens; far fewer means the links were not found at all.
        #expect(checked >= 60)
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    /// `path` (absolute) without its `.` and `..` components.
    static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/") where component != "." {
            if component == ".." {
                if !components.isEmpty { components.removeLast() }
            } else {
                components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// What is wrong with `target`, a link of the document at `source` in the repository at `root`
    /// (both absolute paths), or nil when it resolves; `anchors` gives the anchors of a Markdown
    /// document a fragment points into.
    static func problem(
        with target: String, from source: String, root: String, anchors: (String) throws -> Set<String>
    ) throws -> String? {
        if target.firstMatch(of: /^[A-Za-z][A-Za-z0-9+.-]*:/) != nil {
            guard let url = URL(string: target), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https"
            else { return "is neither a relative path nor an http(s) URL" }
            guard let host = url.host, !host.isEmpty else { return "is a URL without a host" }
            return nil
        }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        let (path, fragment) = (parts[0], parts.count > 1 ? parts[1] : "")
        // GitHub reads a path that starts with "/" from the repository's root, any other from the
        // document's folder; a fragment alone points into the document itself.
        let folder = String(source[..<(source.lastIndex(of: "/") ?? source.endIndex)])
        let file =
            path.isEmpty ? source : normalized((path.hasPrefix("/") ? root : folder) + "/" + path)
        guard file == root || file.hasPrefix(root + "/") else { return "leads out of the repository" }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            return "names no file or folder"
        }
        if fragment.isEmpty { return nil }
        guard !isDirectory.boolValue, file.hasSuffix(".md") else {
            // GitHub's line anchors are the only fragments of a file that is not Markdown.
            return fragment.wholeMatch(of: /L[0-9]+(-L[0-9]+)?/) != nil ? nil : "has a fragment but no headings"
        }
        return try anchors(file).contains(fragment) ? nil : "names no heading of \(file.split(separator: "/").last!)"
    }

    @Test("headings get GitHub's anchors: lowercase, punctuation dropped, spaces to hyphens, duplicates numbered")
    func anchorRule() {
        let document = MarkdownDocument(
            """
            # KeyboardAdapter
            ## Quick start: Swift
            ### X11 (`x11`)
            ## GNOME: GNOME Shell's keyboard (`gnome`)
            ## JSON Lines, schema 1
            ## [The session service](docs/service.md), from other languages
            ## snake_case and kebab-case
            ## Limits
            ## Limits ##
            ## Limits
            """)
        #expect(
            document.anchors == [
                "keyboardadapter", "quick-start-swift", "x11-x11", "gnome-gnome-shells-keyboard-gnome",
                "json-lines-schema-1", "the-session-service-from-other-languages", "snake_case-and-kebab-case",
                "limits", "limits-1", "limits-2",
            ])
    }

    @Test("links are read from prose: inline, images and references; code blocks and code spans are skipped")
    func linksFound() {
        let document = MarkdownDocument(
            """
            # Title

            See [a](a.md) and ![b](b.png "a title"), [c][d], [e][] and `[not](code-span.md)`;
            a link's text may break across lines: [the
            text](two.md#part), and so may a code span: `[not
            one](either.md)`.

            ```sh
            [not](fenced.md)
            ```

            ~~~
            [not](tilde-fenced.md)
            ~~~

            [f][missing]

            [d]: d.md
            [E]: https://example.org/e
            """)
        let expected: Set<String> = ["a.md", "b.png", "two.md#part", "d.md", "https://example.org/e"]
        #expect(Set(document.links.map(\.target)) == expected)
        #expect(document.links.first { $0.target == "two.md#part" }?.line == 4)
        #expect(document.undefinedReferences == ["missing"])
        #expect(document.anchors == ["title"])
    }

    @Test("a broken target is told apart from a good one")
    func problemsFound() throws {
        let root = Self.normalized(DocumentationTests.root.path)
        let readme = root + "/README.md"
        let anchors = { (path: String) in
            Set(MarkdownDocument(try String(contentsOfFile: path, encoding: .utf8)).anchors)
        }
        let good = [
            "docs/kbwatch.md#exit-codes", "docs/", "#installing", "/man/kbwatch.1", "./docs/../CHANGELOG.md",
            "https://github.com/apple/swift-log",
        ]
        for target in good {
            #expect(try Self.problem(with: target, from: readme, root: root, anchors: anchors) == nil, "\(target)")
        }
        let bad = [
            "docs/missing.md", "docs/kbwatch.md#no-such-heading", "#no-such-heading", "../outside.md",
            "man/kbwatch.1#options", "https://", "ftp://example.org/file",
        ]
        for target in bad {
            #expect(try Self.problem(with: target, from: readme, root: root, anchors: anchors) != nil, "\(target)")
        }
    }
}

/// A Markdown document as the link checks see it: the anchors of its headings and the links of its
/// prose, with fenced code blocks and code spans left out.
struct MarkdownDocument {
    /// A link's target as written, and the line it starts on.
    struct Link: Equatable {
        /// The target: a path, a path with a fragment, a fragment alone, or a URL.
        var target: String
        /// The 1-based line of the document where the link starts.
        var line: Int
    }

    /// The anchors GitHub gives the document's headings, in order.
    var anchors: [String] = []
    /// Every inline link and image, and every reference definition's target.
    var links: [Link] = []
    /// The labels of reference links (`[text][label]`, `[label][]`) that no definition names.
    var undefinedReferences: [String] = []

    /// Reads `text`.
    init(_ text: String) {
        var prose: [String] = []
        var headings: [String] = []
        var definitions: Set<String> = []
        var fence: (marker: Character, length: Int)?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Code is kept out of the prose as blank lines, so that line numbers still count.
            if let open = fence {
                if let close = line.firstMatch(of: /^ {0,3}(`{3,}|~{3,})[ \t]*$/),
                    close.output.1.first == open.marker, close.output.1.count >= open.length
                {
                    fence = nil
                }
                prose.append("")
            } else if let start = line.firstMatch(of: /^ {0,3}(`{3,}|~{3,})/), let marker = start.output.1.first {
                fence = (marker, start.output.1.count)
                prose.append("")
            } else if let definition = line.firstMatch(of: /^ {0,3}\[([^\]]+)\]:[ \t]*<?([^>\s]+)>?/) {
                definitions.insert(definition.output.1.lowercased())
                links.append(Link(target: String(definition.output.2), line: index + 1))
                prose.append("")
            } else {
                if let heading = line.firstMatch(of: /^ {0,3}#{1,6}[ \t]+(.*)$/) {
                    headings.append(String(heading.output.1.replacing(/[ \t]+#+[ \t]*$/, with: "")))
                }
                prose.append(String(line))
            }
        }
        anchors = Self.anchors(headings)
        var references: [String] = []
        for (start, block) in Self.blocks(prose) {
            let text = Self.blankingCodeSpans(block)
            let line = { (index: String.Index) in start + text[..<index].filter { $0 == "\n" }.count }
            for match in text.matches(of: #/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/#) {
                links.append(Link(target: String(match.output.1), line: line(match.range.lowerBound)))
            }
            for match in text.matches(of: /\[([^\]]*)\]\[([^\]]*)\]/) {
                references.append((match.output.2.isEmpty ? match.output.1 : match.output.2).lowercased())
            }
        }
        undefinedReferences = references.filter { !definitions.contains($0) }
    }

    /// The paragraphs of `lines` (runs of lines that are not blank), each with its first line's
    /// 1-based number: a link or a code span may break across lines, never across paragraphs.
    static func blocks(_ lines: [String]) -> [(start: Int, text: String)] {
        var blocks: [(start: Int, text: String)] = []
        var current: [String] = []
        for (index, line) in (lines + [""]).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !current.isEmpty { blocks.append((index - current.count + 1, current.joined(separator: "\n"))) }
                current = []
            } else {
                current.append(line)
            }
        }
        return blocks
    }

    /// `text` with every code span turned to spaces, its line breaks kept, so that what is left is
    /// prose and every line stays where it was.
    static func blankingCodeSpans(_ text: String) -> String {
        var result = ""
        var rest = text[...]
        while let span = rest.firstMatch(of: /`[^`]*`/) {
            result += rest[..<span.range.lowerBound]
            result += String(span.output.map { $0 == "\n" ? "\n" : " " })
            rest = rest[span.range.upperBound...]
        }
        return result + rest
    }

    /// GitHub's anchors for `headings`: the heading's text (a link's text, not its target),
    /// lowercased, with every character but letters, digits, `-`, `_` and spaces dropped, and
    /// spaces turned to `-`; a heading met again gets `-1`, then `-2`, and so on.
    static func anchors(_ headings: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return headings.map { heading in
            let text = heading.replacing(#/!?\[([^\]]*)\]\([^)]*\)/#) { String($0.output.1) }
            var anchor = ""
            for character in text.lowercased() {
                if character == " " {
                    anchor.append("-")
                } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                    anchor.append(character)
                }
            }
            let count = seen[anchor, default: 0]
            seen[anchor] = count + 1
            return count == 0 ? anchor : "\(anchor)-\(count)"
        }
    }
}
