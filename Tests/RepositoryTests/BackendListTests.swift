import Foundation
import KeyboardAdapter
import Testing

/// The backends kbwatch and the library ship, as their registrations name them, are the ones the
/// man page, the JSON schema, the README's list and docs/backends.md's sections name (kbwatch's
/// usage text is made from the registrations): adding a backend's registration without its
/// documentation fails here.
@Suite("the shipped backends, named everywhere they are listed")
struct BackendListTests {
    static let names = KeyboardAdapterBackends.registrations.map(\.name)

    static func text(_ path: String) throws -> String {
        try String(contentsOf: DocumentationTests.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The paragraph of `text` that starts at the first line containing `marker` (that is
    /// `marker`, when `exact`), up to the next blank line or roff request that starts a new
    /// paragraph.
    static func paragraph(_ text: String, after marker: String, exact: Bool = false) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { exact ? $0 == marker : $0.contains(marker) }) else { return nil }
        let rest = lines[(start + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix(".TP") && !$0.hasPrefix(".SH") }
        return ([lines[start]] + rest).joined(separator: "\n")
    }

    @Test("the man page's lists, the schema's backend field, the README and docs/backends.md")
    func everyListNamesEveryBackend() throws {
        #expect(Self.names.count >= 4, "\(Self.names)")
        // kbwatch's usage text is made from the registrations (Usage.backendNames); what is
        // written by hand is checked here.
        let man = try Self.text("man/kbwatch.1")
        let lists = [
            ("the man page's --backend", try #require(Self.paragraph(man, after: ".BI \\-\\-backend \" NAME\""))),
            ("the man page's backend field", try #require(Self.paragraph(man, after: ".B backend", exact: true))),
            (
                "the man page's KEYBOARD_ADAPTER_BACKEND",
                try #require(Self.paragraph(man, after: "The backend to use when"))
            ),
            (
                "the schema's backend",
                try #require(
                    Self.paragraph(try Self.text("schema/kbwatch-1.schema.json"), after: "The backend that observed it")
                )
            ),
        ]
        for (list, text) in lists {
            for name in Self.names {
                #expect(
                    text.range(of: "\\b\(name)\\b", options: .regularExpression) != nil,
                    "\(list) leaves out \(name):\n\(text)")
            }
        }
        // The README lists each backend with a link to its section of docs/backends.md, a heading
        // that ends with the backend's name: "## X11 (`x11`)".
        let readme = try Self.text("README.md")
        let sections = try Self.text("docs/backends.md").split(separator: "\n").filter { $0.hasPrefix("## ") }
        for name in Self.names {
            #expect(readme.contains("(`\(name)`)"), "the README's list of backends leaves out `\(name)`")
            #expect(
                sections.contains { $0.hasSuffix("(`\(name)`)") }, "docs/backends.md has no section for `\(name)`")
        }
    }
}
