import KeyboardBackendInterface

/// Compact JSON written straight into a byte buffer: what ``JSONValue`` renders to, and what
/// kbwatch's JSON Lines are written with, without building a value tree or a `String` first.
/// A text kept from one line to the next keeps its capacity, so writing a line allocates
/// nothing. Strings are escaped exactly as ``JSONValue`` escapes them.
///
/// Not copyable: it owns its buffer, and every write goes straight to it.
public struct JSONText: ~Copyable {
    // The appending primitives are public and inlinable (inlinable package methods are not
    // inlined into other modules; the module is in no product, so this adds no API): a line's
    // fixed fragments are literals whose length is known where they are written, so each becomes
    // a few moves in the writer instead of a call into this module and one into memcpy.
    @usableFromInline var start: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0

    /// How many bytes were written.
    package var count: Int { written }

    /// An empty text with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    /// Empties the text, keeping its capacity.
    package mutating func removeAll() { written = 0 }

    /// The bytes written (UTF-8), valid during `body` only.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: start, count: written))
    }

    /// The text as a `String`.
    package var string: String { String(decoding: UnsafeBufferPointer(start: start, count: written), as: UTF8.self) }

    /// Room for `more` bytes after the ones written; the caller writes them and counts them.
    @inlinable @inline(__always)
    mutating func room(_ more: Int) -> UnsafeMutablePointer<UInt8> {
        if written + more > capacity { grow(to: written + more) }
        return start + written
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: start, count: written)
        start.deallocate()
        start = moved
        capacity = larger
    }

    /// Appends `bytes` as they are.
    @inlinable @inline(__always)
    public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        room(bytes.count).initialize(from: base, count: bytes.count)
        written += bytes.count
    }

    /// Appends `literal` as it is (JSON punctuation, keys known to need no escaping).
    @inlinable @inline(__always)
    public mutating func raw(_ literal: StaticString) {
        raw(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends one byte as it is.
    @inlinable @inline(__always)
    public mutating func raw(byte: UInt8) {
        room(1).pointee = byte
        written += 1
    }

    /// Appends `null`.
    package mutating func null() { raw("null") }

    /// Appends `true` or `false`.
    package mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// Appends `value` or `null`.
    package mutating func bool(_ value: Bool?) {
        if let value { bool(value) } else { null() }
    }

    /// Appends an integer in decimal, as `String(value)` writes it.
    package mutating func int(_ value: Int) {
        if value < 0 {
            raw(byte: UInt8(ascii: "-"))
            unsigned(value.magnitude)
        } else {
            unsigned(UInt(value))
        }
    }

    private mutating func unsigned(_ value: UInt) {
        // Most numbers in a line are coordinates and sizes, below 10 000: their digits are
        // counted without a loop.
        var digits: Int
        if value < 10_000 {
            digits = value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : 4
        } else {
            digits = 5
            var power: UInt = 100_000
            while digits < 20, value >= power {
                digits += 1
                power = power &* 10
            }
        }
        let out = room(digits)
        var rest = value
        var index = digits
        // Two digits per division, from the last two on.
        while rest >= 10 {
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 100)
            let pair = Self.digitPairs.utf8Start + Int(truncatingIfNeeded: remainder) &* 2
            index -= 2
            out[index] = pair[0]
            out[index + 1] = pair[1]
            rest = quotient
        }
        if index > 0 { out[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest) }
        written += digits
    }

    /// "00", "01" and so on to "99", one after the other.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Appends an integer padded with zeros in front to `width` characters, as
    /// `String(repeating: "0", count: width - text.count) + text` pads `String(value)`: `7` → `07`.
    package mutating func zeroPadded(_ value: Int, width: Int) {
        var characters = value < 0 ? 2 : 1
        var rest = value.magnitude
        while rest >= 10 {
            characters += 1
            rest /= 10
        }
        for _ in characters..<max(characters, width) { raw(byte: UInt8(ascii: "0")) }
        int(value)
    }

    /// Appends a number as ``JSONValue/number(_:)`` renders it: `null` when not finite, an integer
    /// when whole (below 10¹⁵), else Swift's shortest exact decimal.
    package mutating func number(_ value: Double) {
        if !value.isFinite {
            null()
        } else if value == value.rounded(), abs(value) < 1e15 {
            int(Int(value))
        } else {
            var text = value.description
            text.withUTF8 { raw($0) }
        }
    }

    /// Appends `text` as a JSON string: quotes, backslashes and every control character escaped
    /// (including DEL and the C1 range, so no terminal escape survives in the text), and the
    /// bidirectional overrides and line and paragraph separators, which are valid JSON but can
    /// reorder or break what a terminal shows.
    package mutating func string(_ text: String) {
        raw(byte: UInt8(ascii: "\""))
        // Printable ASCII other than the quote and the backslash goes as it is, in one copy.
        let plain =
            text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
                guard let base = utf8.baseAddress else { return true }
                var index = 0
                while index < utf8.count {
                    // One comparison finds the bytes below 0x20 and from 0x7F on.
                    let byte = base[index]
                    if byte &- 0x20 >= 0x5F || byte == 0x22 || byte == 0x5C { return false }
                    index += 1
                }
                raw(UnsafeBufferPointer(start: base, count: utf8.count))
                return true
            } ?? false
        if !plain { escaped(text) }
        raw(byte: UInt8(ascii: "\""))
    }

    /// A string known to need no escaping (an enumeration's raw value: printable ASCII, neither
    /// the quote nor the backslash), quoted, without looking at its bytes.
    package mutating func plain(_ text: String) {
        assert(text.utf8.allSatisfy { $0 &- 0x20 < 0x5F && $0 != 0x22 && $0 != 0x5C }, "not plain: \(text)")
        raw(byte: UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { raw($0) }
        raw(byte: UInt8(ascii: "\""))
    }

    /// The bytes written from offset `start` on, as an array.
    package func bytes(from start: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: self.start + start, count: written - start))
    }

    /// Appends `text` or `null`.
    package mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    private mutating func escaped(_ text: String) {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: raw("\\\"")
            case 0x5C: raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069:
                raw("\\u")
                let hex: StaticString = "0123456789abcdef"
                let value = scalar.value
                for shift in stride(from: 12, through: 0, by: -4) {
                    raw(byte: hex.utf8Start[Int((value >> UInt32(shift)) & 0xF)])
                }
            default:
                for byte in UTF8.encode(scalar)! { raw(byte: byte) }
            }
        }
    }

    /// Appends `{"x":…,"y":…,"width":…,"height":…}`.
    package mutating func rect(_ rect: Rect) {
        raw(byte: UInt8(ascii: "{"))
        rectFields(rect)
        raw(byte: UInt8(ascii: "}"))
    }

    /// Appends `"x":…,"y":…,"width":…,"height":…`, the fields of a rectangle in an object.
    private mutating func rectFields(_ rect: Rect) {
        raw("\"x\":")
        int(rect.x)
        raw(",\"y\":")
        int(rect.y)
        raw(",\"width\":")
        int(rect.width)
        raw(",\"height\":")
        int(rect.height)
    }

    /// Appends `{"name":…,"x":…,"y":…,"width":…,"height":…}`, or `null`.
    package mutating func output(_ output: Output?) {
        guard let output else { return null() }
        raw("{\"name\":")
        string(output.name)
        raw(byte: UInt8(ascii: ","))
        rectFields(output.frame)
        raw(byte: UInt8(ascii: "}"))
    }

    /// Appends `{"id":…,"name":…,"kind":…,"pid":…}`.
    package mutating func keyboard(_ keyboard: KeyboardIdentity) {
        raw("{\"id\":")
        string(keyboard.id)
        raw(",\"name\":")
        string(keyboard.name)
        raw(",\"kind\":")
        string(keyboard.kind.rawValue)
        raw(",\"pid\":")
        if let pid = keyboard.pid { int(Int(pid)) } else { null() }
        raw(byte: UInt8(ascii: "}"))
    }

    /// Appends `{"name":…,"code":…}`, or `null`.
    package mutating func layout(_ layout: InputLayout?) {
        guard let layout else { return null() }
        raw("{\"name\":")
        string(layout.name)
        raw(",\"code\":")
        string(layout.code)
        raw(byte: UInt8(ascii: "}"))
    }
}
