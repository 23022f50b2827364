/// A JSON value whose objects keep their keys in the order given, so that recordings and
/// kbwatch's JSON Lines print fields in a fixed, documented order (Foundation's encoder does not
/// promise one). Rendering always produces valid JSON: every string is escaped, whatever it holds.
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A number; non-finite values render as `null`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in this order.
    case object([(String, JSONValue)])

    /// Equality, keys compared in order.
    package static func == (a: JSONValue, b: JSONValue) -> Bool { a.rendered == b.rendered }
    /// Hash of the rendered text.
    package func hash(into hasher: inout Hasher) { hasher.combine(rendered) }

    /// The value, or `null` when nil.
    package static func optional<T>(_ value: T?, _ transform: (T) -> JSONValue) -> JSONValue {
        value.map(transform) ?? .null
    }

    /// Compact JSON text on one line.
    package var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    private func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let value):
            if !value.isFinite {
                out += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                out += String(Int(value))
            } else {
                out += String(value)
            }
        case .string(let value): Self.escape(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.render(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.escape(key, into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        }
    }

    /// Writes `text` as a JSON string: quotes, backslashes and every control character escaped
    /// (including DEL and the C1 range, so no terminal escape survives in the text).
    private static func escape(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Bidirectional overrides and line/paragraph separators are valid JSON but can
            // reorder or break what a terminal shows: escaped too.
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.value == 0x061C || (0x200E...0x200F).contains(scalar.value)
                || (0x2028...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension Rect {
    /// `{"x":…,"y":…,"width":…,"height":…}`.
    package var json: JSONValue {
        .object([("x", .int(x)), ("y", .int(y)), ("width", .int(width)), ("height", .int(height))])
    }
}

extension Output {
    /// `{"name":…,"x":…,"y":…,"width":…,"height":…}`: the output as one flat object.
    package var json: JSONValue {
        .object([
            ("name", .string(name)), ("x", .int(frame.x)), ("y", .int(frame.y)),
            ("width", .int(frame.width)), ("height", .int(frame.height)),
        ])
    }
}

extension KeyboardIdentity {
    /// `{"id":…,"name":…,"kind":…,"pid":…}`.
    package var json: JSONValue {
        .object([
            ("id", .string(id)), ("name", .string(name)), ("kind", .string(kind.rawValue)),
            ("pid", .optional(pid) { .int(Int($0)) }),
        ])
    }
}

extension InputLayout {
    /// `{"name":…,"code":…}`.
    package var json: JSONValue {
        .object([("name", .string(name)), ("code", .optional(code) { .string($0) })])
    }
}
