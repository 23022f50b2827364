import KeyboardAdapterCore

/// Numbers the shows of the keyboards, so that one broadcast `Event` serves every subscriber.
/// `local` is judged once per show (a backend judges it by the focus the keyboard showed with), so
/// a subscriber's verdict can only change when a show starts: it is sent to the subscriber alone
/// (`Verdict`) then, and only when it differs from the last one it was sent, and every event and
/// progress frame of the show carries the show's number (`show`), for the subscriber to find the
/// verdict that holds for it. On moves and on shows whose verdicts do not change, nothing but
/// the broadcast goes out, which the bus copies to every listener from one message.
struct ShowNumbers {
    /// The show each keyboard is in, by keyboard id.
    private var current: [String: UInt32] = [:]
    private var last: UInt32 = 0

    /// The number of the show `update` belongs to, and whether the show starts with it (a
    /// `willShow`, or the first event of a keyboard not known yet).
    mutating func number(for update: KeyboardUpdate) -> (number: UInt32, starts: Bool) {
        let id = update.keyboard.id
        if update.event != .willShow, let number = current[id] { return (number, false) }
        last &+= 1
        current[id] = last
        return (last, true)
    }

    /// The number of the show keyboard `id` is in; nil when it is in none.
    func number(ofKeyboard id: String) -> UInt32? { current[id] }

    /// Forgets keyboard `id`'s show once it has hidden (after its `didHide` went out).
    mutating func ended(_ id: String) { current[id] = nil }
}

/// The verdict a subscriber was last sent.
enum SentVerdict: Equatable {
    /// None yet: the next show's verdict goes to it whatever it is.
    case none
    /// `local` as sent (nil: unknown), and where the display server shows the window the
    /// keyboard came up for (sent only with `local` true; nil when not sent).
    case sent(Bool?, window: Rect?)
}
