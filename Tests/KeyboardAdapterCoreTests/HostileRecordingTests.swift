import Foundation
import Testing

@testable import KeyboardAdapterCore
@testable import KeyboardReplay

/// Recordings written to break the reader: each was a crash or a silent mistake once.
@Suite("hostile recordings")
struct HostileRecordingTests {
    static let keyboard = #""keyboard":{"id":"k","name":"n","kind":"keyboard"}"#

    func reason(_ line: String) -> String? {
        do {
            _ = try ObservationCodec.decode(line[...], lineNumber: 3, previousTime: nil)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a coordinate of Int.min is out of range, not a crash")
    func intMin() {
        let line =
            #"{"t":0,"# + Self.keyboard
            + #","frame":{"x":-9223372036854775808,"y":0,"width":1,"height":1},"geometry":"reported"}"#
        #expect(reason(line) == "line 3: coordinates out of range in frame")
    }

    @Test("513 brackets (and 100 000) are a line error, not a crash in the JSON parser")
    func deepNesting() {
        #expect(reason(String(repeating: "[", count: 513)) == "line 3: nested deeper than 16 levels")
        #expect(reason(String(repeating: "[", count: 100_000)) == "line 3: nested deeper than 16 levels")
    }

    @Test("valid JSON out of range says what is out of range")
    func pidOutOfRange() {
        let line =
            #"{"t":0,"keyboard":{"id":"k","name":"n","kind":"keyboard","pid":2147483648},"frame":null,"geometry":"reported"}"#
        #expect(
            reason(line) == "line 3: field 'keyboard.pid' is out of range (2147483648, not in -2147483648...2147483647)"
        )
    }

    @Test("a huge time is rejected with the bound")
    func hugeTime() {
        // 1.8e308 is just past the largest Double: out of range for any reader.
        let line = #"{"t":1.8e308,"# + Self.keyboard + #","frame":null,"geometry":"reported"}"#
        #expect(reason(line) == "line 3: number 1.8e308 is out of range")
        let finite = #"{"t":1.7e308,"# + Self.keyboard + #","frame":null,"geometry":"reported"}"#
        #expect(reason(finite) == "line 3: time 1.7e+308 is not a number of seconds from 0 to 1000000000")
        let past = #"{"t":1000000000.5,"# + Self.keyboard + #","frame":null,"geometry":"reported"}"#
        #expect(reason(past) == "line 3: time 1000000000.5 is not a number of seconds from 0 to 1000000000")
    }

    @Test("duplicate keys are an error, so a later negative width is not hidden")
    func duplicateKeys() {
        let line =
            #"{"t":0,"# + Self.keyboard
            + #","frame":{"x":0,"y":0,"width":10,"height":1,"width":-1},"geometry":"reported"}"#
        #expect(reason(line) == #"line 3: duplicate key "width""#)
        let time = #"{"t":0,"t":-1,"# + Self.keyboard + #","frame":null,"geometry":"reported"}"#
        #expect(reason(time) == #"line 3: duplicate key "t""#)
    }

    @Test("an unknown kind names the value, escaped")
    func unknownValue() {
        let line = #"{"t":0,"keyboard":{"id":"k","name":"n","kind":"robot\u2028"},"frame":null,"geometry":"reported"}"#
        #expect(reason(line) == #"line 3: field 'keyboard.kind' has an unknown value "robot\u2028""#)
    }

    @Test("a line of 1 MiB + 1 byte is rejected by the codec")
    func longLine() {
        let line = #"{"t":0,"# + Self.keyboard + #","frame":null,"geometry":"reported","pad":""#
        let padded = line + String(repeating: "a", count: (1 << 20) + 1 - line.utf8.count - 2) + #""}"#
        #expect(padded.utf8.count == (1 << 20) + 1)
        #expect(reason(padded) == "line 3: a line longer than 1048576 bytes")
    }

    @Test(
        "a line of 1 MiB + N bytes is rejected by the reader, with or without a final newline",
        arguments: [("\n", 1), ("\n", 4096), ("", 1), ("", 70_000)])
    func longLineFromFile(ending: String, extra: Int) throws {
        let path = NSTemporaryDirectory() + "long-line-\(UUID().uuidString).jsonl"
        let text = String(repeating: "x", count: (1 << 20) + extra) + ending
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(.file(path))
        #expect(reader.nextReading() == nil)
        #expect(reader.error == "a line longer than 1048576 bytes")
    }

    @Test("a line of exactly 1 MiB is still read")
    func exactLimit() throws {
        let path = NSTemporaryDirectory() + "limit-line-\(UUID().uuidString).jsonl"
        try (String(repeating: "x", count: 1 << 20) + "\nshort\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(.file(path))
        #expect(reader.nextReading()?.utf8.count == 1 << 20)
        #expect(reader.nextReading() == "short")
        #expect(reader.error == nil)
    }
}

extension LineReader {
    /// The next line, reading the file as far as needed (a file is always readable).
    func nextReading() -> String? {
        while true {
            if let line = next() { return line }
            if isAtEnd { return nil }
            fill()
        }
    }
}
