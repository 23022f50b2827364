import Foundation
import Glibc
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

    @Test("a misspelled condition is an error naming the key and its line, never a wider match")
    func unknownKey() throws {
        let text = """
            { "rules": [
                { "name": "florence", "class": "Florence" },
                { "name": "mine",
                  "clas": "Mine" }
            ] }
            """
        let loaded = try load(Array(text.utf8))
        #expect(loaded.rules == .builtIn)
        #expect(
            loaded.problem?.contains(
                "line 4: rules[1] has the key \"clas\", which a rule cannot have (a rule has acceptsInput, class, "
                    + "hasClass, instance, kind, name, onscreenKeyboard, overrideRedirect, title, windowType)") == true,
            "\(loaded.problem ?? "no problem")")
    }

    @Test("an unknown key with a line separator and a control character is named escaped")
    func unknownHostileKey() throws {
        let loaded = try load(Array(#"{"rules":[{"name":"a","class":"A","x\u2028\u0085y":1}]}"#.utf8))
        #expect(loaded.rules == .builtIn)
        #expect(
            loaded.problem?.contains(#"line 1: rules[0] has the key "x\u2028\u0085y", which a rule cannot have"#)
                == true,
            "\(loaded.problem ?? "no problem")")
    }

    /// A private config directory whose rules path is made by `make`, loaded.
    func loadPlaced(_ make: (String) throws -> Void) throws -> (rules: KeyboardRules, problem: String?) {
        let home = NSTemporaryDirectory() + "placed-rules-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["XDG_CONFIG_HOME": home]
        let url = KeyboardRules.configFileURL(environment: environment)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try make(url.path)
        return KeyboardRules.load(environment: environment)
    }

    @Test("a FIFO, a socket, a device, a directory and a symlink loop are ignored with a note, never waited on")
    func notRegularFiles() throws {
        let fifo = try loadPlaced { path in #expect(mkfifo(path, 0o600) == 0) }
        #expect(
            fifo.rules == .builtIn && fifo.problem?.hasSuffix("rules.json: a FIFO, not a regular file; ignored") == true
        )
        let socket = try loadPlaced { path in
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                path.utf8CString.withUnsafeBytes {
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count)))
                }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(bound == 0)
            close(fd)
        }
        #expect(socket.problem?.hasSuffix("a socket, not a regular file; ignored") == true, "\(socket.problem ?? "")")
        let device = try loadPlaced { path in
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        }
        #expect(device.problem?.hasSuffix("a device, not a regular file; ignored") == true, "\(device.problem ?? "")")
        let directory = try loadPlaced { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        #expect(directory.problem?.hasSuffix("a directory, not a regular file; ignored") == true)
        let loop = try loadPlaced { path in
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path + ".b")
            try FileManager.default.createSymbolicLink(atPath: path + ".b", withDestinationPath: path)
        }
        #expect(loop.rules == .builtIn && loop.problem?.hasSuffix("a loop of symbolic links; ignored") == true)
        let absent = try loadPlaced { _ in }
        #expect(absent.rules == .builtIn && absent.problem == nil)
    }

    @Test("a symbolic link to a regular rules file is read")
    func linkToFile() throws {
        let linked = try loadPlaced { path in
            try #"{"rules":[{"name":"florence","class":"Florence"}]}"#.write(
                toFile: path + ".real", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path + ".real")
        }
        #expect(linked.problem == nil)
        #expect(linked.rules.rules.first == KeyboardRule(name: "florence", windowClass: "Florence"))
    }

    @Test("a rules file that still parses keeps working")
    func valid() throws {
        let loaded = try load(Array(#"{"rules":[{"name":"florence","class":"Florence","onscreenKeyboard":1}]}"#.utf8))
        #expect(loaded.problem == nil)
        #expect(
            loaded.rules.rules.first == KeyboardRule(name: "florence", windowClass: "Florence", onscreenKeyboard: 1))
    }
}
