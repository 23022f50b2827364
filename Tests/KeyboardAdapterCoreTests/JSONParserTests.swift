import Foundation
import KeyboardJSON
import Testing

@testable import KeyboardAdapterCore

@Suite("JSON parser for outside bytes")
struct JSONParserTests {
    let parser = JSONParser()

    @Test("parses every kind of value, keeping key order")
    func values() throws {
        let value = try parser.parse(#" {"b":[1,-2.5,1e2,true,false,null],"a":"x\"\u00e9\ud83d\ude00"} "#[...])
        #expect(
            value
                == .object([
                    ("b", .array([.int(1), .number(-2.5), .number(100), .bool(true), .bool(false), .null])),
                    ("a", .string("x\"é😀")),
                ]))
    }

    @Test("nesting is bounded: 513 and 100 000 brackets are an error, not a crash")
    func depth() {
        for depth in [65, 513, 100_000] {
            #expect(throws: JSONParser.Failure(reason: "nested deeper than 64 levels")) {
                try parser.parse(String(repeating: "[", count: depth)[...])
            }
        }
        #expect(throws: JSONParser.Failure(reason: "nested deeper than 64 levels")) {
            try parser.parse((String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600))[...])
        }
        #expect(
            (try? parser.parse((String(repeating: "[", count: 64) + String(repeating: "]", count: 64))[...])) != nil)
    }

    @Test("duplicate keys are an error naming the key")
    func duplicates() {
        #expect(throws: JSONParser.Failure(reason: #"duplicate key "width""#)) {
            try parser.parse(#"{"width":5,"width":-5}"#[...])
        }
        #expect(throws: JSONParser.Failure(reason: #"duplicate key "\u2028""#)) {
            try parser.parse("{\"\u{2028}\":1,\"\u{2028}\":2}"[...])
        }
    }

    @Test("numbers beyond a Double are out of range; beyond Int they stay numbers")
    func numbers() throws {
        #expect(throws: JSONParser.Failure(reason: "number 1e400 is out of range")) { try parser.parse("1e400"[...]) }
        #expect(try parser.parse("-9223372036854775808"[...]) == .int(Int.min))
        #expect(try parser.parse("9223372036854775808"[...]) == .number(9_223_372_036_854_775_808))
        #expect(try parser.parse("1.7e308"[...]) == .number(1.7e308))
        #expect(throws: JSONParser.Failure(reason: "number 1.8e308 is out of range")) {
            try parser.parse("1.8e308"[...])
        }
    }

    @Test(
        "malformed text is not valid JSON",
        arguments: ["", "[", "{", "[1,]", "{\"a\"}", "01", "1.", "-", "tru", "\"\u{1}\"", "\"\\x\"", "[1] 2", "nul"])
    func malformed(text: String) {
        #expect(throws: JSONParser.Failure(reason: "not valid JSON")) { try parser.parse(text[...]) }
    }

    @Test("invalid UTF-8, lone surrogates and oversized input are refused")
    func bytes() {
        #expect(throws: JSONParser.Failure(reason: "invalid UTF-8 in a string")) {
            try parser.parse([0x22, 0xFF, 0xFE, 0x22])
        }
        #expect(throws: JSONParser.Failure(reason: "a lone surrogate in a \\u escape")) {
            try parser.parse(#""\ud800""#[...])
        }
        #expect(throws: JSONParser.Failure(reason: "longer than 10 bytes")) {
            try JSONParser(maximumLength: 10).parse("[1,2,3,4,5,6]"[...])
        }
    }
}
