/// Makes text from other programs (window titles, class names, output names) safe to print on a
/// terminal: control characters, escape sequences and bidirectional overrides are shown as
/// visible escapes instead of acting on the terminal.
package enum TerminalText {
    /// `text` with every character that could act on a terminal shown as a visible escape.
    package static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x1B: out += "\\e"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x5C: out += "\\\\"
            // C0, DEL and C1 controls; bidirectional marks, embeddings, overrides and isolates,
            // which reorder what follows; line and paragraph separators, which break lines.
            case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
