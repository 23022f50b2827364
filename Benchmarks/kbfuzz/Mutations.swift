/// Ways to break an input, each aimed at a limit or a parser corner: byte flips, truncation,
/// numbers at and past every limit, deep nesting, invalid UTF-8, duplicate keys, long lines.
enum Mutations {
    /// Numbers at and just past each limit of the formats (coordinates ±2^30, pids Int32, times
    /// 0...10^9 s, Int, Double), and a few that are not numbers at all.
    static let numbers = [
        "0", "-0", "-1", "1073741824", "1073741825", "-1073741824", "-1073741825", "2147483647", "2147483648",
        "-2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "1000000000", "1000000000.000001", "1e9", "1e308",
        "1.7976931348623157e308", "1.8e308", "1e400", "-1e400", "1e-400", "4.9e-324", "0.1", "1E+2", "NaN",
        "Infinity", "01", "1.", ".5", "--1", "1e", "0x10",
    ]

    /// Characters that must never reach output raw.
    static let hostileText = ["\u{2028}", "\u{2029}", "\u{1B}[31m", "\u{7}", "\u{202E}", "\u{85}", "\u{0}", "\u{61C}"]

    /// Applies one to three mutations to `bytes`.
    static func mutate(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var out = bytes
        for _ in 0..<Int.random(in: 1...3, using: &random) { out = once(out, &random) }
        return out
    }

    private static func once(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var out = bytes
        let position = out.isEmpty ? 0 : Int.random(in: 0..<out.count, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<15:  // flip bits of a few bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) where !out.isEmpty {
                out[Int.random(in: 0..<out.count, using: &random)] ^=
                    UInt8(1) << UInt8.random(in: 0...7, using: &random)
            }
        case 15..<22:  // truncate
            out.removeSubrange(position...)
        case 22..<45:  // a number at or past a limit in place of a number
            out = replaceNumber(out, with: random.pick(numbers), &random)
        case 45..<53:  // deep nesting, up to 100 000
            let depth = random.pick([15, 16, 17, 64, 65, 512, 513, 514, 10_000, 100_000])
            let open = random.pick(["[", "{\"a\":"])
            var nest = Array(String(repeating: open, count: depth).utf8)
            if random.chance(0.5) { nest += Array((open == "[" ? "1" : "1").utf8) }
            if random.chance(0.3) { nest += Array(String(repeating: open == "[" ? "]" : "}", count: depth).utf8) }
            out.insert(contentsOf: nest, at: position)
        case 53..<61:  // invalid UTF-8
            let bad: [[UInt8]] = [
                [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
            ]
            out.insert(contentsOf: random.pick(bad), at: position)
        case 61..<73:  // a duplicate key: a member repeated right after itself
            out = duplicateKey(out, &random)
        case 73..<76:  // a very long line, around the 1 MiB limit
            let length = (1 << 20) + random.pick([-2, -1, 0, 1, 2, 100])
            out.insert(
                contentsOf: Array(#"{"t":0,"x":""#.utf8) + [UInt8](repeating: 0x61, count: max(0, length)), at: position
            )
            if random.chance(0.5) { out.insert(0x0A, at: position) }
        case 76..<85:  // hostile text inside a string
            let text = Array((random.chance(0.5) ? random.pick(hostileText) : "\\u2028\\u001b\\ud800").utf8)
            if let quote = out.indices.dropFirst(position).first(where: { out[$0] == 0x22 }) {
                out.insert(contentsOf: text, at: quote + 1)
            }
        case 85..<92:  // lines swapped or repeated: time going backwards, keyboards twice
            var lines = out.split(separator: 0x0A, omittingEmptySubsequences: false)
            if lines.count > 1 {
                let a = Int.random(in: 0..<lines.count, using: &random)
                let b = Int.random(in: 0..<lines.count, using: &random)
                if random.chance(0.5) { lines.swapAt(a, b) } else { lines.insert(lines[a], at: b) }
            }
            out = Array(lines.joined(separator: [0x0A]))
        default:  // a field removed or emptied
            let cuts: [[UInt8]] = [Array(#""frame":"#.utf8), Array(#""keyboard":"#.utf8), Array(#""t":"#.utf8)]
            let key = random.pick(cuts)
            if let range = firstRange(of: key, in: out, from: position) {
                out.replaceSubrange(range, with: Array(random.pick([#""gone":"#, #""frame":"#, ""]).utf8))
            }
        }
        return out
    }

    /// Replaces the number that starts at or after a random place with `number`.
    private static func replaceNumber(_ bytes: [UInt8], with number: String, _ random: inout SeededRandom) -> [UInt8] {
        guard !bytes.isEmpty else { return Array(number.utf8) }
        let from = Int.random(in: 0..<bytes.count, using: &random)
        func isNumberByte(_ b: UInt8) -> Bool {
            (0x30...0x39).contains(b) || b == 0x2D || b == 0x2E || b == 0x65 || b == 0x2B
        }
        guard
            let start = bytes.indices.dropFirst(from).first(where: {
                (0x30...0x39).contains(bytes[$0]) || bytes[$0] == 0x2D
            })
        else { return bytes }
        var end = start
        while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
        var out = bytes
        out.replaceSubrange(start..<end, with: Array(number.utf8))
        return out
    }

    /// Repeats one `"key":value` member (a simple value) right after itself.
    private static func duplicateKey(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        let from = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
        guard let colon = bytes.indices.dropFirst(from).first(where: { bytes[$0] == 0x3A }),
            let keyStart = bytes[..<colon].dropLast().lastIndex(of: 0x22)
        else { return bytes }
        var end = colon + 1
        while end < bytes.count, bytes[end] != 0x2C, bytes[end] != 0x7D, bytes[end] != 0x5B, bytes[end] != 0x7B {
            end += 1
        }
        var member = Array(bytes[keyStart..<end])
        // Sometimes the repeated value differs (a negative width after a good one).
        if random.chance(0.5), let digit = member.lastIndex(where: { (0x30...0x39).contains($0) }) {
            member.insert(0x2D, at: digit)
        }
        var out = bytes
        out.insert(contentsOf: [0x2C] + member, at: end)
        return out
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Range<Int>? {
        guard needle.count <= haystack.count else { return nil }
        var index = min(from, haystack.count - needle.count)
        while index <= haystack.count - needle.count {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index..<index + needle.count }
            index += 1
        }
        return nil
    }
}
