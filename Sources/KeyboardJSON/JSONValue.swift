import KeyboardBackendInterface

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
        var out = JSONText(capacity: 128)
        render(into: &out)
        return out.string
    }

    /// Appends the value's compact JSON text to `out`.
    package func render(into out: inout JSONText) {
        switch self {
        case .null: out.null()
        case .bool(let value): out.bool(value)
        case .int(let value): out.int(value)
        case .number(let value): out.number(value)
        case .string(let value): out.string(value)
        case .array(let values):
            out.raw(byte: UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.raw(byte: UInt8(ascii: ",")) }
                value.render(into: &out)
            }
            out.raw(byte: UInt8(ascii: "]"))
        case .object(let members):
            out.raw(byte: UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.raw(byte: UInt8(ascii: ",")) }
                out.string(key)
                out.raw(byte: UInt8(ascii: ":"))
                value.render(into: &out)
            }
            out.raw(byte: UInt8(ascii: "}"))
        }
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
