import CSystemd
import CSystemdBus
import Glibc

/// A value read from a message whatever its signature, variants unwrapped: how typed arguments
/// (`a{sv}` dictionaries, structs, arrays of them) are read without walking the message by hand.
/// Read with bounds (``BusMessage/readValue(limits:)``), so that a peer's message of any shape
/// costs at most a known amount.
package indirect enum ReceivedBusValue: Sendable, Equatable {
    /// `s`, `o` or `g`.
    case string(String)
    /// `b`.
    case bool(Bool)
    /// Any integer type (`y`, `n`, `q`, `i`, `u`, `x`, `t` up to `Int64.max`, `h`).
    case integer(Int64)
    /// `d`.
    case double(Double)
    /// An array of anything but dictionary entries.
    case array([ReceivedBusValue])
    /// An array of dictionary entries with string keys (`a{s…}`); a key given twice keeps its
    /// first value.
    case dictionary([String: ReceivedBusValue])
    /// A struct's members, in order.
    case structure([ReceivedBusValue])

    /// The entry `key` of a dictionary; nil for a missing key or a value that is no dictionary.
    package subscript(key: String) -> ReceivedBusValue? {
        if case .dictionary(let entries) = self { entries[key] } else { nil }
    }
}

extension BusMessage {
    /// How much of a message ``readValue(limits:)`` reads before it refuses it.
    package struct ReadLimits: Sendable {
        /// Containers inside containers (a variant counts as one).
        package var depth = 8
        /// Values in all, containers included.
        package var values = 4096
        /// Bytes of one string.
        package var stringBytes = 4096

        /// The limits given, each with a default fit for one keyboard update or state.
        package init(depth: Int = 8, values: Int = 4096, stringBytes: Int = 4096) {
            self.depth = depth
            self.values = values
            self.stringBytes = stringBytes
        }
    }

    /// Reads the next complete value; throws (`E2BIG`) past `limits`, or when the message ends or
    /// holds a dictionary whose keys are not strings.
    package func readValue(limits: ReadLimits = ReadLimits()) throws(BusFailure) -> ReceivedBusValue {
        var budget = limits.values
        return try readValue(depth: 0, limits: limits, budget: &budget)
    }

    private func readValue(depth: Int, limits: ReadLimits, budget: inout Int) throws(BusFailure) -> ReceivedBusValue {
        guard depth <= limits.depth, budget > 0 else { throw BusFailure(code: E2BIG) }
        budget -= 1
        guard let (type, contents) = peek() else { throw BusFailure(code: ENXIO) }
        switch type {
        case "s", "o", "g": return .string(try readText(type, limit: limits.stringBytes))
        case "b": return .bool(try readBool())
        case "d": return .double(try readDouble())
        case "y": return .integer(Int64(try readBasic(type, as: UInt8.self)))
        case "n": return .integer(Int64(try readBasic(type, as: Int16.self)))
        case "q": return .integer(Int64(try readBasic(type, as: UInt16.self)))
        case "i", "h": return .integer(Int64(try readBasic(type, as: Int32.self)))
        case "u": return .integer(Int64(try readBasic(type, as: UInt32.self)))
        case "x": return .integer(try readBasic(type, as: Int64.self))
        case "t":
            let number = try readBasic(type, as: UInt64.self)
            guard number <= UInt64(Int64.max) else { throw BusFailure(code: ERANGE) }
            return .integer(Int64(number))
        case "v", "a", "r":
            guard let contents, try enter(type, contents) else { throw BusFailure(code: EBADMSG) }
            let value = try readContainer(type, contents, depth: depth, limits: limits, budget: &budget)
            try exit()
            return value
        default: throw BusFailure(code: EBADMSG)
        }
    }

    /// A container's contents, once entered.
    private func readContainer(
        _ type: Character, _ contents: String, depth: Int, limits: ReadLimits, budget: inout Int
    ) throws(BusFailure) -> ReceivedBusValue {
        if type == "v" { return try readValue(depth: depth + 1, limits: limits, budget: &budget) }
        if type == "a", contents.first == "{" {
            var entries: [String: ReceivedBusValue] = [:]
            while try enter("e", String(contents.dropFirst().dropLast())) {
                guard case .string(let key) = try readValue(depth: depth + 1, limits: limits, budget: &budget) else {
                    throw BusFailure(code: EBADMSG)
                }
                let value = try readValue(depth: depth + 1, limits: limits, budget: &budget)
                if entries[key] == nil { entries[key] = value }
                try exit()
            }
            return .dictionary(entries)
        }
        var members: [ReceivedBusValue] = []
        while peek() != nil { members.append(try readValue(depth: depth + 1, limits: limits, budget: &budget)) }
        return type == "r" ? .structure(members) : .array(members)
    }

    private func readText(_ type: Character, limit: Int) throws(BusFailure) -> String {
        var value: UnsafePointer<CChar>?
        let status = withUnsafeMutablePointer(to: &value) {
            ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: type.unicodeScalars.first!)), $0)
        }
        guard status > 0, let value else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        guard strnlen(value, limit + 1) <= limit else { throw BusFailure(code: E2BIG) }
        return boundedString(value, limit: limit)
    }

    private func readBasic<Number: FixedWidthInteger>(_ type: Character, as: Number.Type) throws(BusFailure) -> Number {
        var value = Number.zero
        let status = ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: type.unicodeScalars.first!)), &value)
        guard status > 0 else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return value
    }
}
