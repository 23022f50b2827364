import KeyboardBackendInterface
import SystemdBus

/// When KWin shows its virtual keyboard. KWin 6.7 replaced the boolean `enabled` of
/// `org.kde.kwin.VirtualKeyboard` with the integer `mode`: 0 never, 1 for touch and stylus input
/// only (the default), 2 for any input. Either way `forceActivate` sets `active` but shows the
/// keyboard only where `willShowOnActive()` is true; a machine used with a mouse in mode 1 gets
/// nothing on screen, which a show request must say rather than succeed.
package enum KWinKeyboardMode: Sendable, Hashable, CustomStringConvertible {
    /// KWin 6.7 and later: its `mode`.
    case mode(Int32)
    /// KWin 6.6 and earlier: its `enabled`.
    case enabled(Bool)
    /// Neither property could be read.
    case unknown

    /// `mode 2 (shows for any input)`, `enabled`, `unknown`.
    package var description: String {
        switch self {
        case .mode(0): "mode 0 (never shows)"
        case .mode(1): "mode 1 (shows for touch and stylus input only)"
        case .mode(2): "mode 2 (shows for any input)"
        case .mode(let other): "mode \(other)"
        case .enabled(true): "enabled"
        case .enabled(false): "disabled"
        case .unknown: "mode unknown"
        }
    }

    /// Why KWin will not show its keyboard now, with what the user can do, when `willShowOnActive`
    /// said it would not.
    package var refusal: String {
        let fix =
            "set it to show for any input: System Settings, Keyboard, Virtual Keyboard, or "
            + "`busctl --user set-property org.kde.KWin /VirtualKeyboard org.kde.kwin.VirtualKeyboard mode i 2`"
        switch self {
        case .mode(1):
            return "KWin will not show its keyboard now: its virtual keyboard is in \(self) and the last input "
                + "was neither; \(fix)"
        case .mode(0), .enabled(false):
            return "KWin will not show its keyboard: its virtual keyboard is \(self); \(fix)"
        default:
            return "KWin will not show its keyboard now (\(self)): it shows it only after touch or stylus input"
        }
    }

    /// Asks KWin on `connection`, with blocking calls.
    package static func read(on connection: BusConnection, timeout: Double) -> KWinKeyboardMode {
        for name in ["mode", "enabled"] {
            if let reply = try? connection.call(get(name), timeout: timeout), let mode = parse(reply) { return mode }
        }
        return .unknown
    }

    /// Asks on a short connection of its own; nil without a session bus.
    package static func read(environment: [String: String], timeout: Double) -> KWinKeyboardMode? {
        guard let connection = try? BusConnection(environment: environment) else { return nil }
        return read(on: connection, timeout: timeout)
    }

    /// The call that says whether `forceActivate` would bring the keyboard on screen now.
    static let willShowOnActive = BusCall(
        destination: "org.kde.KWin", path: "/VirtualKeyboard", interface: "org.kde.kwin.VirtualKeyboard",
        member: "willShowOnActive")

    /// `Properties.Get` of `name` on KWin's `/VirtualKeyboard`.
    static func get(_ name: String) -> BusCall {
        .getProperty(
            destination: "org.kde.KWin", path: "/VirtualKeyboard", interface: "org.kde.kwin.VirtualKeyboard",
            property: name)
    }

    /// The mode a `Get` reply of `mode` (or, failing that, `enabled`) says; nil when it says neither.
    static func parse(_ reply: BusMessage) -> KWinKeyboardMode? {
        guard reply.error == nil, reply.hasSignature("v") else { return nil }
        switch reply.peek()?.contents {
        case "i":
            guard (try? reply.enter("v", "i")) == true, let mode = try? reply.readInt32() else { return nil }
            return .mode(mode)
        case "b":
            guard (try? reply.enter("v", "b")) == true, let enabled = try? reply.readBool() else { return nil }
            return .enabled(enabled)
        default: return nil
        }
    }

}
