/// A subscriber's verdicts as the service sent them (`Verdict`): for each show from which a
/// verdict holds, `local` (nil: unknown). The verdict for show N is that of the last show up to N
/// that has one (see ``ShowNumbers``). Used on the client's loop only.
struct SubscriberVerdicts {
    /// The changes, by show, ascending; at most ``limit``, the oldest dropped first.
    private var changes: [(show: UInt32, local: Bool?)] = []
    /// The first show a verdict was sent for: events of earlier shows, and any before the first
    /// verdict, were published before the subscription.
    private var first: UInt32?
    /// How many changes are kept: a keyboard that stays up while its subscriber's verdict
    /// changes more often than this at other shows is then judged unknown.
    static let limit = 64

    /// Records `local` from `show` on: it replaces whatever was said from that show on (the
    /// service says a subscriber's verdicts again when its options change).
    mutating func record(_ local: Bool?, from show: UInt32) {
        changes.removeAll { $0.show >= show }
        changes.append((show, local))
        if changes.count > Self.limit { changes.removeFirst(changes.count - Self.limit) }
        first = first.map { min($0, show) } ?? show
    }

    /// What holds for an event of `show`: nil when it was published before the subscription
    /// (not for this subscriber to hear), else its `local` (itself nil when unknown).
    func local(for show: UInt32) -> Bool?? {
        guard let first, show >= first else { return nil }
        return .some(changes.last { $0.show <= show }?.local ?? nil)
    }
}
