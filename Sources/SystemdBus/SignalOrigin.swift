/// Who a signal must come from to be believed. The session bus delivers a signal addressed to one
/// connection whatever that connection's match rules say, and a rule's `sender='well.known.Name'`
/// is no check against such a signal: so every match names the origin its signals must have, and
/// ``BusConnection/addMatch(_:from:handler:)`` drops the rest before any handler sees them.
///
/// Not `Sendable`: an origin is checked where its connection's signals are dispatched, on the
/// connection's loop, and reads an owner that is kept there.
package enum SignalOrigin {
    /// The bus itself (`org.freedesktop.DBus`): `NameOwnerChanged` and the bus's other signals.
    case bus
    /// The unique name that owns a well-known name now, as the bus said (`GetNameOwner`, then its
    /// own `NameOwnerChanged`): `owner` returns it, nil while the name has no owner.
    case owner(() -> String?)

    /// The unique name the bus gives its own messages.
    package static let busName = "org.freedesktop.DBus"

    /// Whether `message` comes from this origin.
    func sent(_ message: BusMessage) -> Bool {
        guard let sender = message.sender else { return false }
        switch self {
        case .bus: return sender == Self.busName
        case .owner(let owner): return owner().map { $0 == sender } ?? false
        }
    }
}

/// The unique name that owns a well-known name, as the bus says: set from `GetNameOwner` and from
/// `NameOwnerChanged` signals the bus sent (``SignalOrigin/bus``). Used on its loop's thread; its
/// reads from ``SignalOrigin/owner(_:)`` happen there too, when a signal is dispatched.
package final class NameOwnership {
    // Not Sendable: written and read on the loop's thread only (start-up, then dispatch there).
    /// The owner now; nil while nobody owns the name.
    package var owner: String?

    /// No owner known yet.
    package init(owner: String? = nil) { self.owner = owner }

    /// The origin of the owner's signals.
    package var origin: SignalOrigin { .owner { [unowned self] in self.owner } }
}
