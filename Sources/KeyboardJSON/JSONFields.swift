import KeyboardBackendInterface

/// Typed reading of one parsed JSON object, for formats read from outside (recordings, rules
/// files). Every failure names the field by its dotted path and says what is wrong with it:
/// missing, null, the wrong type, out of range, or an unknown value. Unknown fields are ignored,
/// so newer files stay readable.
package struct JSONFields: Sendable {
    /// The object's own path, such as `keyboard`; empty for the top level.
    package let path: String
    private let members: [String: JSONValue]

    /// Reads `value` as an object; `path` names it in errors (empty for the top level).
    package init(_ value: JSONValue, path: String = "") throws(JSONParser.Failure) {
        guard case .object(let list) = value else {
            throw JSONParser.Failure(reason: path.isEmpty ? "not a JSON object" : "field '\(path)' has the wrong type")
        }
        self.path = path
        // The parser refuses duplicate keys, so no member is lost here.
        members = Dictionary(list, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the object has `key`, null or not.
    package func contains(_ key: String) -> Bool { members[key] != nil }

    /// The object's keys, sorted (for formats that refuse keys they do not know).
    package var keys: [String] { members.keys.sorted() }

    /// The dotted path of `key`.
    package func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The value of `key`; nil when absent or null.
    package func value(_ key: String) -> JSONValue? {
        isAbsent(key) ? nil : members[key]
    }

    /// True when `key` is absent or null (compared by case: rendering a large value to compare it would cost).
    private func isAbsent(_ key: String) -> Bool {
        guard let value = members[key] else { return true }
        if case .null = value { return true }
        return false
    }

    private func required(_ key: String) throws(JSONParser.Failure) -> JSONValue {
        guard let value = members[key] else { throw JSONParser.Failure(reason: "missing field '\(name(key))'") }
        if case .null = value { throw JSONParser.Failure(reason: "field '\(name(key))' is null") }
        return value
    }

    private func wrongType(_ key: String) -> JSONParser.Failure {
        JSONParser.Failure(reason: "field '\(name(key))' has the wrong type")
    }

    /// A required string.
    package func string(_ key: String) throws(JSONParser.Failure) -> String {
        guard case .string(let text) = try required(key) else { throw wrongType(key) }
        return text
    }

    /// An optional string (absent or null: nil).
    package func optionalString(_ key: String) throws(JSONParser.Failure) -> String? {
        if isAbsent(key) { return nil }
        return try string(key)
    }

    /// A required boolean.
    package func bool(_ key: String) throws(JSONParser.Failure) -> Bool {
        guard case .bool(let flag) = try required(key) else { throw wrongType(key) }
        return flag
    }

    /// An optional boolean (absent or null: nil).
    package func optionalBool(_ key: String) throws(JSONParser.Failure) -> Bool? {
        if isAbsent(key) { return nil }
        return try bool(key)
    }

    /// A required integer within `range`; a number outside it is reported as out of range, with
    /// the number, rather than as a type error.
    package func int(_ key: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(JSONParser.Failure) -> Int {
        switch try required(key) {
        case .int(let number) where range.contains(number): return number
        case .int(let number): throw outOfRange(key, String(number), range)
        case .number(let number) where number == number.rounded(): throw outOfRange(key, "\(number)", range)
        default: throw wrongType(key)
        }
    }

    /// An optional integer within `range` (absent or null: nil).
    package func optionalInt(_ key: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(JSONParser.Failure)
        -> Int?
    {
        if isAbsent(key) { return nil }
        return try int(key, in: range)
    }

    private func outOfRange(_ key: String, _ number: String, _ range: ClosedRange<Int>) -> JSONParser.Failure {
        JSONParser.Failure(
            reason: "field '\(name(key))' is out of range (\(number), not in \(range.lowerBound)...\(range.upperBound))"
        )
    }

    /// A required number (integers included); always finite, as the parser refuses the rest.
    package func double(_ key: String) throws(JSONParser.Failure) -> Double {
        switch try required(key) {
        case .int(let number): return Double(number)
        case .number(let number): return number
        default: throw wrongType(key)
        }
    }

    /// A required string that must be one of `T`'s raw values.
    package func choice<T: RawRepresentable>(_ key: String, as type: T.Type) throws(JSONParser.Failure) -> T
    where T.RawValue == String {
        let text = try string(key)
        guard let value = T(rawValue: text) else {
            throw JSONParser.Failure(
                reason: "field '\(name(key))' has an unknown value \(JSONValue.string(text).rendered)")
        }
        return value
    }

    /// An optional choice (absent or null: nil).
    package func optionalChoice<T: RawRepresentable>(_ key: String, as type: T.Type) throws(JSONParser.Failure) -> T?
    where T.RawValue == String {
        if isAbsent(key) { return nil }
        return try choice(key, as: type)
    }

    /// A required nested object.
    package func object(_ key: String) throws(JSONParser.Failure) -> JSONFields {
        try JSONFields(try required(key), path: name(key))
    }

    /// An optional nested object (absent or null: nil).
    package func optionalObject(_ key: String) throws(JSONParser.Failure) -> JSONFields? {
        if isAbsent(key) { return nil }
        return try object(key)
    }

    /// A required array.
    package func array(_ key: String) throws(JSONParser.Failure) -> [JSONValue] {
        guard case .array(let values) = try required(key) else { throw wrongType(key) }
        return values
    }
}
