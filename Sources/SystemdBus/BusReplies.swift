import CSystemd
import CSystemdBus
import Glibc

// The serving side of sd-bus, beside SystemdBus.swift's calling side: owning a name, building
// replies and signals, answering with errors. Same rules: one Swift owner per C object, used on
// one thread.

/// What `requestName` found.
package enum NameRequest: Sendable, Hashable {
    /// The name is this connection's now.
    case owned
    /// Another connection owns it.
    case taken
}

/// One value to append to an outgoing message.
package indirect enum BusValue: Sendable {
    case string(String)
    case bool(Bool)
    case uint32(UInt32)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    /// A variant holding the value, with its signature.
    case variant(BusValue)
    /// A struct of the values, in order: `(iiii)` for four `int32`s.
    case structure([BusValue])
    /// An array of values of one signature, given because an empty array has no element to
    /// tell it: `.array("a{sv}", …)` is `aa{sv}`.
    case array(String, [BusValue])
    /// `a{sv}`: names and values (each value put in a variant).
    case dictionary([(String, BusValue)])
    /// `as`.
    case strings([String])
    /// `au`.
    case uint32s([UInt32])
    /// `at`.
    case uint64s([UInt64])

    /// The D-Bus signature of the value.
    package var signature: String {
        switch self {
        case .string: "s"
        case .bool: "b"
        case .uint32: "u"
        case .int32: "i"
        case .int64: "x"
        case .double: "d"
        case .variant: "v"
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .array(let element, _): "a" + element
        case .dictionary: "a{sv}"
        case .strings: "as"
        case .uint32s: "au"
        case .uint64s: "at"
        }
    }
}

extension BusConnection {
    /// Asks for `name` without replacing or queueing behind its owner.
    package func requestName(_ name: String) throws(BusFailure) -> NameRequest {
        let status = ka_sd_bus_request_name(bus, name, 0)
        if status == -EEXIST { return .taken }
        guard status >= 0 else { throw BusFailure(code: -status) }
        return .owned
    }

    /// Sends `call` with `values` after its own arguments and waits up to `timeout` seconds for
    /// the reply (start-up, probes and one-shot clients only).
    package func call(_ call: BusCall, values: [BusValue], timeout: Double) throws(BusFailure) -> BusMessage {
        let request = try message(for: call)
        try append(values, to: request)
        return try waitForReply(to: request, timeout: timeout)
    }

    /// Answers `call` with `values`.
    package func reply(to call: BusMessage, _ values: [BusValue]) throws(BusFailure) {
        var made: OpaquePointer?
        let status = ka_sd_bus_message_new_method_return(call.pointer, &made)
        guard status >= 0, let made else { throw BusFailure(code: -status) }
        let reply = BusMessage(owning: made)
        try append(values, to: reply)
        try send(reply)
    }

    /// Answers `call` with the error `name` and `message`.
    package func replyError(to call: BusMessage, name: String, message: String) {
        _ = ka_bus_reply_with_error(bus, call.pointer, name, message)
    }

    /// Emits the signal `interface.member` from `path` with `values`, to `destination` only
    /// when given (a unicast signal), else to every connection whose rules match.
    package func emit(
        path: String, interface: String, member: String, _ values: [BusValue], destination: String? = nil
    ) throws(BusFailure) {
        var made: OpaquePointer?
        var status = ka_sd_bus_message_new_signal(bus, &made, path, interface, member)
        guard status >= 0, let made else { throw BusFailure(code: -status) }
        let signal = BusMessage(owning: made)
        if let destination {
            status = ka_sd_bus_message_set_destination(made, destination)
            guard status >= 0 else { throw BusFailure(code: -status) }
        }
        try append(values, to: signal)
        try send(signal)
    }

    private func send(_ message: BusMessage) throws(BusFailure) {
        let status = ka_sd_bus_send(bus, message.pointer, nil)
        guard status >= 0 else { throw BusFailure(code: -status) }
    }

    private func append(_ values: [BusValue], to message: BusMessage) throws(BusFailure) {
        for value in values { try append(value, to: message.pointer) }
    }

    private func append(_ value: BusValue, to message: OpaquePointer) throws(BusFailure) {
        func check(_ status: Int32) throws(BusFailure) { if status < 0 { throw BusFailure(code: -status) } }
        switch value {
        case .string(let text): try check(ka_bus_append_string(message, text))
        case .bool(let flag): try check(ka_bus_append_bool(message, flag ? 1 : 0))
        case .uint32(var number):
            try check(ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &number))
        case .int32(var number):
            try check(ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &number))
        case .int64(var number):
            try check(ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &number))
        case .double(var number):
            try check(ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &number))
        case .structure(let members):
            let contents = String(value.signature.dropFirst().dropLast())
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "r")), contents))
            for member in members { try append(member, to: message) }
            try check(ka_sd_bus_message_close_container(message))
        case .array(let element, let values):
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), element))
            for value in values { try append(value, to: message) }
            try check(ka_sd_bus_message_close_container(message))
        case .variant(let inner):
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), inner.signature))
            try append(inner, to: message)
            try check(ka_sd_bus_message_close_container(message))
        case .dictionary(let entries):
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}"))
            for (key, entry) in entries {
                try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv"))
                try check(ka_bus_append_string(message, key))
                try append(.variant(entry), to: message)
                try check(ka_sd_bus_message_close_container(message))
            }
            try check(ka_sd_bus_message_close_container(message))
        case .strings(let texts):
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s"))
            for text in texts { try check(ka_bus_append_string(message, text)) }
            try check(ka_sd_bus_message_close_container(message))
        case .uint32s(let numbers):
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "u"))
            for var number in numbers {
                try check(ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &number))
            }
            try check(ka_sd_bus_message_close_container(message))
        case .uint64s(let numbers):
            try check(ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "t"))
            for var number in numbers {
                try check(ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &number))
            }
            try check(ka_sd_bus_message_close_container(message))
        }
    }
}
