import CSystemd
import CSystemdBus
import Glibc

// The one file that calls sd-bus: thin typed wrappers, one Swift owner per C object. Everything
// here is used on one thread at a time (sd-bus objects are single-threaded): the run loop's, or
// the caller's for a short probe connection.

/// A failed sd-bus call: the `-errno` it returned and, for error replies, the D-Bus error's name
/// and message (bounded: onboard puts a whole Python traceback in its messages).
package struct BusFailure: Error, CustomStringConvertible {
    package var code: Int32
    package var name: String?
    package var message: String?

    package init(code: Int32, name: String? = nil, message: String? = nil) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// `org.freedesktop.DBus.Error.NameHasNoOwner: ...`, or the errno's text.
    package var description: String {
        if let name { return message.map { "\(name): \($0)" } ?? name }
        return String(cString: strerror(code))
    }

    /// The bus says nobody owns the name (the keyboard is not running).
    package var isNoOwner: Bool {
        name == "org.freedesktop.DBus.Error.NameHasNoOwner" || name == "org.freedesktop.DBus.Error.ServiceUnknown"
    }
}

/// One argument of a method call.
package enum BusArgument: Sendable, Hashable {
    case string(String)
    case bool(Bool)
    /// A variant holding a boolean (the value of `Properties.Set`).
    case boolVariant(Bool)
    /// `au`.
    case uint32s([UInt32])
}

/// A method call to describe before it is sent.
package struct BusCall: Sendable, Hashable {
    package var destination: String
    package var path: String
    package var interface: String
    package var member: String
    package var arguments: [BusArgument] = []
    /// Whether the bus may start the destination to answer (D-Bus activation): only for the
    /// package's own session service, never for a keyboard.
    package var startsDestination = false

    package init(
        destination: String, path: String, interface: String, member: String, arguments: [BusArgument] = [],
        startsDestination: Bool = false
    ) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.startsDestination = startsDestination
    }

    /// A call to the bus itself (`org.freedesktop.DBus`).
    package static func busDriver(_ member: String, _ arguments: [BusArgument]) -> BusCall {
        BusCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }

    /// `org.freedesktop.DBus.Properties.Get(interface, property)` on `destination` at `path`.
    package static func getProperty(destination: String, path: String, interface: String, property: String) -> BusCall {
        BusCall(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(interface), .string(property)])
    }
}

/// Text from a peer, copied with a bound: at most `limit` bytes (cut at a character boundary),
/// invalid UTF-8 repaired. sd-bus has checked the string is valid UTF-8 without NUL already.
package func boundedString(_ pointer: UnsafePointer<CChar>, limit: Int = 256) -> String {
    let length = strnlen(pointer, limit + 1)
    let bytes = UnsafeRawBufferPointer(start: pointer, count: min(length, limit))
    var text = String(decoding: bytes, as: UTF8.self)
    if length > limit {
        // A cut character decodes as U+FFFD at the end: drop it.
        if text.last == "\u{FFFD}" { text.removeLast() }
        text += "…"
    }
    return text
}

/// A connection to the session bus (`DBUS_SESSION_BUS_ADDRESS`), which takes no Unix
/// descriptors. Closed when released.
package final class BusConnection {
    package let bus: OpaquePointer

    /// Connects to the session bus named by `environment`. The connection is made at once; its
    /// authentication completes on the first call or `process()`. It takes no Unix descriptors
    /// unless `takesDescriptors`: then only for what the bus driver hands out (a caller's
    /// `ProcessFD`), which only a connection that makes no object and owns no name should be
    /// (any other message that carries some is dropped, its descriptors closed, as it is
    /// processed).
    package init(environment: [String: String], takesDescriptors: Bool = false) throws(BusFailure) {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw BusFailure(code: ENOENT, message: "DBUS_SESSION_BUS_ADDRESS is not set")
        }
        guard address.utf8.count < 4096 else {
            throw BusFailure(code: EINVAL, message: "DBUS_SESSION_BUS_ADDRESS is too long")
        }
        var loadFailure: UnsafePointer<CChar>?
        guard ka_bus_library_load(&loadFailure) >= 0 else {
            throw BusFailure(
                code: ENOENT, message: loadFailure.map { String(cString: $0) } ?? "libsystemd cannot be loaded")
        }
        var created: OpaquePointer?
        var status = ka_sd_bus_new(&created)
        guard status >= 0, let created else { throw BusFailure(code: -status) }
        // No Unix descriptors, ever: the package uses none, and each one a peer sent would be an
        // open file of this process until closed. Not negotiated, the bus refuses to deliver a
        // message carrying some (it answers its sender with an error) before anything queues it.
        status = ka_sd_bus_negotiate_fds(created, takesDescriptors ? 1 : 0)
        if status >= 0, !takesDescriptors, let socket = Self.pacedSocket(address) {
            status = ka_bus_start_paced(created, socket, 25_000)
        } else if status >= 0 {
            status = ka_sd_bus_set_address(created, address)
            if status >= 0 { status = ka_sd_bus_set_bus_client(created, 1) }
            if status >= 0 { status = ka_sd_bus_start(created) }
        }
        guard status >= 0 else {
            ka_sd_bus_flush_close_unref(created)
            throw BusFailure(
                code: -status, message: "cannot connect to \(address): \(String(cString: strerror(-status)))")
        }
        bus = created
    }

    deinit { ka_sd_bus_close_unref(bus) }

    /// The unix socket of `address` (`/path`, or `@name` for an abstract one) when the connection
    /// must pace its authentication: in a Flatpak sandbox (`/.flatpak-info`), whose bus is
    /// xdg-dbus-proxy, which before 0.1.6 drops a client that sends its whole handshake at once,
    /// as sd-bus does. Nil elsewhere, and for addresses the paced start cannot take (another
    /// transport, escaped characters, several addresses).
    package static func pacedSocket(_ address: String, sandboxed: Bool = access("/.flatpak-info", F_OK) == 0) -> String?
    {
        guard sandboxed, !address.contains(";"), !address.contains("%") else { return nil }
        for (prefix, marker) in [("unix:path=", ""), ("unix:abstract=", "@")] where address.hasPrefix(prefix) {
            let value = address.dropFirst(prefix.count).prefix { $0 != "," }
            return value.isEmpty ? nil : marker + value
        }
        return nil
    }

    /// The descriptor to poll.
    package var descriptor: Int32 { ka_sd_bus_get_fd(bus) }

    /// The poll events wanted now (POLLOUT while output is queued); nil once the connection is closed.
    package var events: Int16? {
        let events = ka_sd_bus_get_events(bus)
        return events < 0 ? nil : Int16(truncatingIfNeeded: events)
    }

    /// When sd-bus needs `process()` again without input (a call timing out): absolute
    /// CLOCK_MONOTONIC microseconds, nil for never.
    package var timeoutMicroseconds: UInt64? {
        var usec: UInt64 = 0
        guard ka_sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        return usec
    }

    /// Processes one message or pending step: > 0 when there may be more, 0 when idle, < 0
    /// (`-errno`) when the connection is broken.
    package func process() -> Int32 { ka_sd_bus_process(bus, nil) }

    /// Builds a call that never starts its destination.
    func message(for call: BusCall) throws(BusFailure) -> BusMessage {
        var made: OpaquePointer?
        var status =
            call.startsDestination
            ? ka_sd_bus_message_new_method_call(bus, &made, call.destination, call.path, call.interface, call.member)
            : ka_bus_new_call(bus, &made, call.destination, call.path, call.interface, call.member)
        guard status >= 0, let made else { throw BusFailure(code: -status) }
        let message = BusMessage(owning: made)
        for argument in call.arguments {
            switch argument {
            case .string(let value): status = ka_bus_append_string(made, value)
            case .bool(let value): status = ka_bus_append_bool(made, value ? 1 : 0)
            case .boolVariant(let value): status = ka_bus_append_variant_bool(made, value ? 1 : 0)
            case .uint32s(let numbers): status = Self.append(numbers, to: made)
            }
            guard status >= 0 else { throw BusFailure(code: -status) }
        }
        return message
    }

    /// Appends `au`; the first failure's status, else 0.
    private static func append(_ numbers: [UInt32], to message: OpaquePointer) -> Int32 {
        var status = ka_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "u")
        for var number in numbers where status >= 0 {
            status = ka_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &number)
        }
        return status >= 0 ? ka_sd_bus_message_close_container(message) : status
    }

    /// Sends `call` and waits up to `timeout` seconds for its reply (for start-up and probes only:
    /// never on a loop that is running, whose other sources would wait).
    package func call(_ call: BusCall, timeout: Double) throws(BusFailure) -> BusMessage {
        try waitForReply(to: message(for: call), timeout: timeout)
    }

    /// Sends `request` and waits up to `timeout` seconds for its reply.
    func waitForReply(to request: BusMessage, timeout: Double) throws(BusFailure) -> BusMessage {
        var error = ka_bus_error_null()
        defer { ka_bus_error_free(&error) }
        var reply: OpaquePointer?
        let status = ka_sd_bus_call(bus, request.pointer, UInt64(timeout * 1_000_000), &error, &reply)
        guard status >= 0, let reply else {
            throw BusFailure(
                code: -status, name: error.name.map { boundedString($0) },
                message: error.message.map { conciseErrorMessage($0) })
        }
        return BusMessage(owning: reply)
    }

    /// Sends `call`; `handler` gets the reply (an error reply too, also a timeout after `timeout`
    /// seconds or the connection closing) from `process()`. Keep the slot until then: releasing
    /// it cancels the call.
    package func callAsync(_ call: BusCall, timeout: Double, handler: @escaping (BusMessage) -> Void) throws(BusFailure)
        -> BusSlot
    {
        let request = try message(for: call)
        let box = BusHandler(handler)
        var slot: OpaquePointer?
        let status = ka_sd_bus_call_async(
            bus, &slot, request.pointer, busTrampoline, Unmanaged.passUnretained(box).toOpaque(),
            UInt64(timeout * 1_000_000))
        guard status >= 0, let slot else { throw BusFailure(code: -status) }
        return BusSlot(slot, handler: box)
    }

    /// This connection's unique name on the bus (`:1.42`), once connected.
    package var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard ka_sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return boundedString(name, limit: 255)
    }

    /// Serves the object at `path`: `handler` gets every method call made to it from
    /// `process()` while the slot lives, and returns whether it took the call (sd-bus answers
    /// the others with an error).
    package func addObject(_ path: String, handler: @escaping (BusMessage) -> Bool) throws(BusFailure) -> BusSlot {
        let box = BusHandler { message in _ = handler(message) }
        box.takes = handler
        var slot: OpaquePointer?
        let status = ka_sd_bus_add_object(
            bus, &slot, path, busObjectTrampoline, Unmanaged.passUnretained(box).toOpaque())
        guard status >= 0, let slot else { throw BusFailure(code: -status) }
        return BusSlot(slot, handler: box)
    }

    /// Answers `call` with an empty method return.
    package func replyEmpty(to call: BusMessage) { _ = ka_bus_reply_empty(bus, call.pointer) }

    /// Adds a match rule; `handler` gets every matching message that comes from `origin` (see
    /// ``SignalOrigin``: the rule alone checks nothing of a signal addressed to this connection),
    /// from `process()`, while the slot lives.
    package func addMatch(_ rule: String, from origin: SignalOrigin, handler: @escaping (BusMessage) -> Void)
        throws(BusFailure) -> BusSlot
    {
        let box = BusHandler { message in if origin.sent(message) { handler(message) } }
        var slot: OpaquePointer?
        let status = ka_sd_bus_add_match(bus, &slot, rule, busTrampoline, Unmanaged.passUnretained(box).toOpaque())
        guard status >= 0, let slot else { throw BusFailure(code: -status) }
        return BusSlot(slot, handler: box)
    }
}

/// The last meaningful line of an error message, bounded to 1 000 characters (a Python traceback
/// ends with the exception; a reason with its fix, as the session service's `NoDisplay`, fits).
package func conciseErrorMessage(_ pointer: UnsafePointer<CChar>) -> String {
    let text = boundedString(pointer, limit: 4096)
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
    let line = lines.last ?? ""
    return line.count > 1000 ? String(line.prefix(1000)) + "…" : line
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// A registered callback (a match or a pending call): unregistered when released.
package final class BusSlot {
    private let slot: OpaquePointer
    private let handler: BusHandler

    fileprivate init(_ slot: OpaquePointer, handler: BusHandler) {
        self.slot = slot
        self.handler = handler
    }

    deinit { ka_sd_bus_slot_unref(slot) }
}

/// The Swift side of a C callback, reached through the slot's userdata. Its slot owns it and
/// unregisters the callback before it goes.
private final class BusHandler {
    let body: (BusMessage) -> Void
    /// For an object: whether it took a call.
    var takes: ((BusMessage) -> Bool)?
    init(_ body: @escaping (BusMessage) -> Void) { self.body = body }
}

private let busObjectTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let handler = Unmanaged<BusHandler>.fromOpaque(userdata).takeUnretainedValue()
    return withExtendedLifetime(handler) { (handler.takes?(BusMessage(borrowing: message)) ?? false) ? 1 : 0 }
}

private let busTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let handler = Unmanaged<BusHandler>.fromOpaque(userdata).takeUnretainedValue()
    // The callback may release its own slot, and with it the handler: keep it until it returns.
    withExtendedLifetime(handler) { handler.body(BusMessage(borrowing: message)) }
    return 0
}

/// A message, read with type checks and bounds. Holds a reference for as long as it lives.
package final class BusMessage {
    package let pointer: OpaquePointer

    package init(owning pointer: OpaquePointer) { self.pointer = pointer }
    package init(borrowing pointer: OpaquePointer) { self.pointer = ka_sd_bus_message_ref(pointer) }
    deinit { ka_sd_bus_message_unref(pointer) }

    /// The error of an error reply; nil for a method return.
    package var error: BusFailure? {
        var name: UnsafePointer<CChar>?
        var text: UnsafePointer<CChar>?
        ka_bus_reply_error(pointer, &name, &text)
        guard let name else { return nil }
        return BusFailure(
            code: EIO, name: boundedString(name), message: text.map { conciseErrorMessage($0) })
    }

    /// The unique name of the connection that sent the message.
    package var sender: String? { ka_sd_bus_message_get_sender(pointer).map { boundedString($0, limit: 255) } }

    /// The interface and member a method call or signal names.
    package var member: (interface: String?, name: String?) {
        (
            ka_sd_bus_message_get_interface(pointer).map { boundedString($0, limit: 255) },
            ka_sd_bus_message_get_member(pointer).map { boundedString($0, limit: 255) }
        )
    }

    /// True when the body's signature is exactly `signature`.
    package func hasSignature(_ signature: String) -> Bool { ka_sd_bus_message_has_signature(pointer, signature) > 0 }

    /// The type of the next value, and for containers their contents' signature; nil at the end.
    package func peek() -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard ka_sd_bus_message_peek_type(pointer, &type, &contents) > 0 else { return nil }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { boundedString($0, limit: 64) })
    }

    /// Reads a string ('s'), at most `limit` bytes of it.
    package func readString(limit: Int = 256) throws(BusFailure) -> String {
        var value: UnsafePointer<CChar>?
        let status = withUnsafeMutablePointer(to: &value) {
            ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "s")), $0)
        }
        guard status > 0, let value else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return boundedString(value, limit: limit)
    }

    /// Reads a boolean ('b'), which D-Bus carries as a 32-bit integer.
    package func readBool() throws(BusFailure) -> Bool {
        var value: Int32 = 0
        let status = ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "b")), &value)
        guard status > 0 else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return value != 0
    }

    /// Reads a signed 32-bit integer ('i').
    package func readInt32() throws(BusFailure) -> Int32 {
        var value: Int32 = 0
        let status = ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "i")), &value)
        guard status > 0 else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return value
    }

    /// Reads an unsigned 64-bit integer ('t').
    package func readUInt64() throws(BusFailure) -> UInt64 {
        var value: UInt64 = 0
        let status = ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "t")), &value)
        guard status > 0 else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return value
    }

    /// Reads a double ('d'); NaN and infinities are read as they are (callers bound them).
    package func readDouble() throws(BusFailure) -> Double {
        var value: Double = 0
        let status = ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "d")), &value)
        guard status > 0 else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return value
    }

    /// Reads an unsigned 32-bit integer ('u').
    package func readUInt32() throws(BusFailure) -> UInt32 {
        var value: UInt32 = 0
        let status = ka_sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "u")), &value)
        guard status > 0 else { throw BusFailure(code: status < 0 ? -status : ENXIO) }
        return value
    }

    /// Enters a container (`a`, `e`, `v`, `r`) of the given contents; false at the end of the
    /// enclosing container.
    package func enter(_ type: Character, _ contents: String) throws(BusFailure) -> Bool {
        let status = ka_sd_bus_message_enter_container(
            pointer, CChar(UInt8(ascii: type.unicodeScalars.first!)), contents)
        guard status >= 0 else { throw BusFailure(code: -status) }
        return status > 0
    }

    /// Leaves the container entered last.
    package func exit() throws(BusFailure) {
        let status = ka_sd_bus_message_exit_container(pointer)
        guard status >= 0 else { throw BusFailure(code: -status) }
    }

    /// Skips the next value of the given signature.
    package func skip(_ signature: String) throws(BusFailure) {
        let status = ka_sd_bus_message_skip(pointer, signature)
        guard status >= 0 else { throw BusFailure(code: -status) }
    }

    /// What a `GetConnectionCredentials` reply, read from its start, says of a connection: its
    /// user and process ids (nil when not given), and its process pinned by the bus's
    /// `ProcessFD` when the reply carries one (``BusCredentials/processFailure`` when it carries
    /// one that cannot be taken). Nil for an error reply or a malformed one.
    package func credentials() -> BusCredentials? {
        guard error == nil, hasSignature("a{sv}") else { return nil }
        var uid: Int64 = -1
        var pid: Int64 = -1
        var pidfd: Int32 = -1
        guard ka_bus_read_credentials(pointer, &uid, &pid, &pidfd) >= 0 else { return nil }
        var credentials = BusCredentials(
            uid: UInt32(exactly: uid), pid: Int32(exactly: pid).flatMap { $0 > 0 ? $0 : nil })
        if pidfd >= 0 {
            guard let pid = credentials.pid else {
                // dbus-daemon reads the pid through its pidfd, and gives none once that process ended.
                let held = ka_process_pid_of(pidfd)
                close(pidfd)
                credentials.processFailure = BusFailure(code: held < 0 ? -held : EINVAL)
                return credentials
            }
            do throws(BusFailure) {
                credentials.process = try PinnedProcess(holding: pidfd, pid: pid)
            } catch {
                credentials.processFailure = error
            }
        }
        return credentials
    }
}

/// A connection's credentials as the bus gives them (see ``BusMessage/credentials()``).
package struct BusCredentials {
    /// The connection's user.
    package var uid: UInt32?
    /// The pid of the process that made the connection, as the bus read it (dbus-daemon 1.15.x
    /// and later read it through its pidfd, and give none once that process has ended).
    package var pid: Int32?
    /// That process itself, held by the pidfd the bus took when it connected (`ProcessFD`); nil
    /// when the bus gave none.
    package var process: PinnedProcess?
    /// Why the bus's `ProcessFD` could not be taken: that process has ended (`ESRCH`), or the
    /// descriptor holds another process than ``pid`` names.
    package var processFailure: BusFailure?

    /// Credentials as given.
    package init(uid: UInt32?, pid: Int32?) {
        self.uid = uid
        self.pid = pid
    }
}
