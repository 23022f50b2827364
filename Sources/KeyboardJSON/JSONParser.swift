import KeyboardBackendInterface

/// A strict JSON parser for outside bytes (recordings, rules files). Foundation's parser crashes
/// on deep nesting (513 `[` with this toolchain) and hides duplicate keys, so every input that
/// comes from outside goes through this one instead: it never traps, bounds depth and size
/// before building anything, and refuses what JSON allows but a reader should not trust
/// (duplicate keys, lone surrogates, numbers beyond a Double).
///
/// Integers that fit an `Int` become ``JSONValue/int(_:)``; other numbers become
/// ``JSONValue/number(_:)`` (always finite).
package struct JSONParser: Sendable {
    /// Why a text is not accepted, in words for people; never holds a raw control character.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, such as `not valid JSON` or `duplicate key "t"`.
        package var reason: String
        /// The reason.
        package var description: String { reason }

        /// A failure for `reason`, also for checks made by a format on top of the parser.
        package init(reason: String) { self.reason = reason }
    }

    /// The deepest nesting of arrays and objects accepted.
    package var maximumDepth: Int
    /// The most bytes accepted.
    package var maximumLength: Int

    /// A parser with the given limits. The defaults fit recordings and rules files with room to spare.
    package init(maximumDepth: Int = 64, maximumLength: Int = 1 << 20) {
        self.maximumDepth = max(1, maximumDepth)
        self.maximumLength = max(0, maximumLength)
    }

    /// Parses one JSON text (surrounding whitespace allowed).
    package func parse(_ text: Substring) throws(Failure) -> JSONValue {
        var text = text
        let result = text.withUTF8 { bytes in Result { () throws(Failure) in try parse(bytes) } }
        return try result.get()
    }

    /// Parses one JSON text from raw bytes, which must be UTF-8.
    package func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in Result { () throws(Failure) in try parse(buffer) } }.get()
    }

    /// Parses one JSON text from raw bytes, which must be UTF-8.
    package func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        guard bytes.count <= maximumLength else {
            throw Failure(reason: "longer than \(maximumLength) bytes")
        }
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        let value = try reader.value(depth: 1)
        reader.skipWhitespace()
        guard reader.atEnd else { throw Reader.syntax }
        return value
    }
}

/// The parsing state: a cursor over the bytes. Recursion is bounded by `maximumDepth`, checked
/// before each descent, so the stack stays small whatever the input.
private struct Reader {
    static let syntax = JSONParser.Failure(reason: "not valid JSON")

    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var atEnd: Bool { index >= bytes.count }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        guard let byte = current else { throw Self.syntax }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw Self.syntax
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONParser.Failure) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw Self.syntax }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Self.syntax }
        index += count
        return value
    }

    private func checkDepth(_ depth: Int) throws(JSONParser.Failure) {
        guard depth <= maximumDepth else {
            throw JSONParser.Failure(reason: "nested deeper than \(maximumDepth) levels")
        }
    }

    private mutating func array(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(values)
            default: throw Self.syntax
            }
        }
    }

    private mutating func object(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var members: [(String, JSONValue)] = []
        var keys: Set<String> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw Self.syntax }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw Self.syntax }
            index += 1
            skipWhitespace()
            let value = try value(depth: depth + 1)
            // A later duplicate would silently override (or be overridden by) the first one,
            // hiding a bad value behind a good one: refused.
            guard keys.insert(key).inserted else {
                throw JSONParser.Failure(reason: "duplicate key \(JSONValue.string(key).rendered)")
            }
            members.append((key, value))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw Self.syntax
            }
        }
    }

    private mutating func string() throws(JSONParser.Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the bytes are the string (validated as UTF-8 below).
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw Self.syntax }
            index += 1
        }
        guard let stop = current else { throw Self.syntax }
        var scalars = String.UnicodeScalarView()
        try Self.decodeUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]), into: &scalars)
        if stop == UInt8(ascii: "\"") {
            index += 1
            return String(scalars)
        }
        while true {
            guard let byte = current else { throw Self.syntax }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                scalars.append(try escape())
            default:
                let runStart = index
                while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    guard byte >= 0x20 else { throw Self.syntax }
                    index += 1
                }
                try Self.decodeUTF8(UnsafeBufferPointer(rebasing: bytes[runStart..<index]), into: &scalars)
            }
        }
    }

    private mutating func escape() throws(JSONParser.Failure) -> Unicode.Scalar {
        guard let byte = current else { throw Self.syntax }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hex4()
            if (0xD800...0xDBFF).contains(first) {
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONParser.Failure(reason: "a lone surrogate in a \\u escape") }
                index += 2
                let second = try hex4()
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw JSONParser.Failure(reason: "a lone surrogate in a \\u escape")
                }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw Self.syntax }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else {
                throw JSONParser.Failure(reason: "a lone surrogate in a \\u escape")
            }
            return scalar
        default: throw Self.syntax
        }
    }

    private mutating func hex4() throws(JSONParser.Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw Self.syntax }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Self.syntax
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private static func decodeUTF8(
        _ run: UnsafeBufferPointer<UInt8>, into scalars: inout String.UnicodeScalarView
    ) throws(JSONParser.Failure) {
        var decoder = UTF8()
        var iterator = run.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return
            case .error: throw JSONParser.Failure(reason: "invalid UTF-8 in a string")
            }
        }
    }

    private mutating func number() throws(JSONParser.Failure) -> JSONValue {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else { throw Self.syntax }
        index += 1
        // JSON allows no leading zeros: `0` alone, or a non-zero digit then any digits.
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let digit = current, Self.isDigit(digit) else { throw Self.syntax }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, Self.isDigit(digit) else { throw Self.syntax }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        // Integers beyond Int stay numbers (a reader reports them out of range); numbers beyond
        // a Double are refused here, as no reader could use them.
        guard let value = Double(text), value.isFinite else {
            throw JSONParser.Failure(reason: "number \(text.prefix(40)) is out of range")
        }
        return .number(value)
    }

    private mutating func skipDigits() {
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
