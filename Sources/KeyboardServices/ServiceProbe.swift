import KeyboardBackendInterface
import SystemdBus

/// Asks the bus, with blocking calls that never start the keyboard, what a keyboard service says
/// now: whether its name has an owner, the owner's pid, and the visible property.
enum ServiceProbe {
    /// The state on a short connection of its own.
    static func state(of interface: ServiceInterface, environment: [String: String], timeout: Double)
        -> KeyboardServiceState
    {
        do {
            let connection = try BusConnection(environment: environment)
            return state(of: interface, on: connection, timeout: timeout)
        } catch {
            return KeyboardServiceState(status: .busUnavailable(noBusReason(error)))
        }
    }

    /// The state, asked on `connection`.
    static func state(of interface: ServiceInterface, on connection: BusConnection, timeout: Double)
        -> KeyboardServiceState
    {
        do {
            let owner = try connection.call(.busDriver("GetNameOwner", [.string(interface.busName)]), timeout: timeout)
            guard owner.hasSignature("s") else {
                return KeyboardServiceState(status: .busUnavailable("the session bus answered GetNameOwner oddly"))
            }
        } catch {
            if error.isNoOwner { return KeyboardServiceState(status: .notRunning) }
            return KeyboardServiceState(status: .busUnavailable(noBusReason(error)))
        }
        var state = KeyboardServiceState(status: .running)
        if let reply = try? connection.call(
            .busDriver("GetConnectionUnixProcessID", [.string(interface.busName)]), timeout: timeout),
            reply.hasSignature("u"), let pid = try? reply.readUInt32(), pid > 0, pid <= UInt32(Int32.max)
        {
            state.pid = Int32(pid)
        }
        do {
            switch PropertyReading.reply(try connection.call(interface.getVisible, timeout: timeout)) {
            case .value(let visible): state.isVisible = visible
            case .wrongType(let signature):
                state.problem = "\(interface.visibleProperty) has type '\(signature)', not 'b'"
            case .malformed(let reason): state.problem = reason
            case .invalidated, .absent: break
            }
        } catch {
            // It went away between the two questions.
            if error.isNoOwner { return KeyboardServiceState(status: .notRunning) }
            state.problem = "reading \(interface.visibleProperty): \(error)"
        }
        return state
    }

    /// The unique name that owns `busName` now, nil when nobody does or the bus does not say.
    static func owner(of busName: String, on connection: BusConnection, timeout: Double) -> String? {
        guard let reply = try? connection.call(.busDriver("GetNameOwner", [.string(busName)]), timeout: timeout),
            reply.error == nil, reply.hasSignature("s"), let owner = try? reply.readString(), owner.hasPrefix(":")
        else { return nil }
        return owner
    }

    /// Why the session bus cannot be used, for people.
    static func noBusReason(_ error: BusFailure) -> String {
        if error.name == nil, let message = error.message { return "no session bus: \(message)" }
        return "no session bus: \(error)"
    }
}
