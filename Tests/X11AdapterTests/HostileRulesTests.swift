import Foundation
import Testing

@testable import X11Adapter

/// Rules files written to break the reader: each must be reported and ignored, never crash.
@Suite("hostile rules files")
struct HostileRulesTests {
    /// Loads `bytes` as the rules file of a private config directory.
    func load(_ bytes: [UInt8]) throws -> (rules: KeyboardRules, problem: String?) {
        let home = NSTemporaryDirectory() + "hostile-rules-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["XDG_CONFIG_HOME": home]
        let url = KeyboardRules.configFileURL(environment: environment)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return KeyboardRules.load(environment: environment)
    }

    static func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Each file's bytes and what the problem must say.
    static let cases: [([UInt8], String)] = [
        (utf8(String(repeating: "[", count: 513)), "nested deeper than 8 levels"),
        (utf8(String(repeating: "[", count: 100_000)), "larger than 65536 bytes"),
        (
            utf8(#"{"rules":[{"name":"a","class":"A"}],"pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#),
            "larger than 65536 bytes"
        ),
        (utf8(#"{"rules":[{"name":"a","class":"A","class":"B"}]}"#), #"duplicate key "class""#),
        (utf8(#"{"rules":[],"rules":[{"name":"a","class":"A"}]}"#), #"duplicate key "rules""#),
        (utf8(#"{"rules":[{"name":""#) + [0xFF, 0xC0] + utf8(#"","class":"A"}]}"#), "invalid UTF-8 in a string"),
        (
            utf8(#"{"rules":[{"name":"a","onscreenKeyboard":99999999999}]}"#),
            "field 'rules[0].onscreenKeyboard' is out of range (99999999999, not in 0...4294967295)"
        ),
        (utf8(#"{"rules":[{"name":"a","kind":"robot"}]}"#), #"field 'rules[0].kind' has an unknown value "robot""#),
        (utf8(#"{"rules":[{"name":"a\u2028b"}]}"#), #"rule "a\u2028b" has no condition"#),
    ]

    @Test(
        "deep nesting, a huge file, duplicate keys, invalid UTF-8 and out-of-range numbers are reported and ignored",
        arguments: cases)
    func hostile(bytes: [UInt8], problem: String) throws {
        let loaded = try load(bytes)
        #expect(loaded.rules == .builtIn)
        #expect(loaded.problem?.contains(problem) == true, "\(loaded.problem ?? "no problem")")
    }

    @Test("a rules file that still parses keeps working")
    func valid() throws {
        let loaded = try load(Array(#"{"rules":[{"name":"florence","class":"Florence","onscreenKeyboard":1}]}"#.utf8))
        #expect(loaded.problem == nil)
        #expect(
            loaded.rules.rules.first == KeyboardRule(name: "florence", windowClass: "Florence", onscreenKeyboard: 1))
    }
}
