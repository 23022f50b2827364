/// Atoms the core protocol predefines: fixed numbers that every server knows without a request.
enum PredefinedAtom {
    /// `STRING` (Xlib's `XA_STRING`): Latin-1 text.
    static let string: AtomID = 31
    /// `WM_CLASS` (Xlib's `XA_WM_CLASS`).
    static let wmClass: AtomID = 67
}

/// Any client can write any property of its windows, in any type, format and size: these read
/// them defensively, bounded, and decode what they find without ever failing on bad bytes.
extension WindowServer {
    /// The most bytes read of a text property (titles, WM_CLASS): far longer than any keyboard's
    /// title or class, which is all rules compare them with.
    static var textLimit: Int { 4096 }

    /// A format-32 property's items (CARDINAL, ATOM, WINDOW, ...), at most `maxItems` of them; nil
    /// when absent or of another format.
    func values(_ window: WindowID, _ name: String, maxItems: Int = 64) -> [UInt]? {
        guard let value = property(window, atom(name), maxItems: maxItems), value.format == 32 else { return nil }
        return value.values
    }

    /// A text property decoded for people: UTF8_STRING as UTF-8, STRING as Latin-1, anything else
    /// lossily as UTF-8. At most `textLimit` bytes are read.
    func text(_ window: WindowID, _ name: String) -> String? {
        guard let value = property(window, atom(name), maxItems: Self.textLimit / 4), value.format == 8 else {
            return nil
        }
        return Self.decodeText(value.bytes, isLatin1: value.type == PredefinedAtom.string)
    }

    /// WM_CLASS as (instance, class); nil when the window has none. A class without the NUL
    /// that should separate the two is all instance.
    func windowClass(_ window: WindowID) -> (instance: String, windowClass: String)? {
        guard let value = property(window, PredefinedAtom.wmClass, maxItems: Self.textLimit / 4), value.format == 8
        else {
            return nil
        }
        let parts = value.bytes.split(separator: 0, omittingEmptySubsequences: false)
        let instance = parts.first.map { Self.decodeText(Array($0), isLatin1: true) } ?? ""
        let windowClass = parts.count > 1 ? Self.decodeText(Array(parts[1]), isLatin1: true) : ""
        return (instance, windowClass)
    }

    /// The text of `bytes`, without one trailing NUL.
    private static func decodeText(_ bytes: [UInt8], isLatin1: Bool) -> String {
        let trimmed = bytes.last == 0 ? bytes.dropLast() : bytes[...]
        if isLatin1 {
            // Latin-1 is the first 256 code points: a byte above 0x7F is two bytes of UTF-8.
            var utf8: [UInt8] = []
            utf8.reserveCapacity(trimmed.count * 2)
            for byte in trimmed {
                if byte < 0x80 {
                    utf8.append(byte)
                } else {
                    utf8.append(0xC0 | (byte >> 6))
                    utf8.append(0x80 | (byte & 0x3F))
                }
            }
            return String(decoding: utf8, as: UTF8.self)
        }
        return String(decoding: trimmed, as: UTF8.self)
    }
}
