import Glibc

/// What an observation, a state and an update say about a keyboard beside its frame: who it is,
/// which output it is on, its input layout and what had the focus when it showed. They change
/// seldom (a move changes none of them) but travel with every event, from the backend through the
/// tracker to every subscriber, so they are kept in one immutable storage that copies share: a
/// copy costs one reference count, not one per string and array inside.
///
/// Setting a field to what it already holds keeps the storage, so that a backend that builds each
/// observation afresh from the same values hands the tracker the same storage every time.
package struct KeyboardFacts: Sendable, Hashable {
    /// The shared, never-changed values.
    package final class Storage: Sendable {
        /// The keyboard.
        package let keyboard: KeyboardIdentity
        /// Its output, when known.
        package let output: Output?
        /// Its input layout, when known.
        package let layout: InputLayout?
        /// What had the focus when it showed, when known.
        package let focus: FocusedTopLevel?

        /// Storage of these values.
        init(keyboard: KeyboardIdentity, output: Output?, layout: InputLayout?, focus: FocusedTopLevel?) {
            self.keyboard = keyboard
            self.output = output
            self.layout = layout
            self.focus = focus
        }
    }

    /// The values, shared by every copy until one of them is set to something else.
    package private(set) var storage: Storage

    /// Facts of `keyboard` on `output`, with `layout` and `focus`.
    package init(keyboard: KeyboardIdentity, output: Output?, layout: InputLayout?, focus: FocusedTopLevel?) {
        storage = Storage(keyboard: keyboard, output: output, layout: layout, focus: focus)
    }

    /// The keyboard.
    package var keyboard: KeyboardIdentity {
        get { storage.keyboard }
        set {
            // Field by field: the identity's padding makes a comparison of its bytes fail.
            guard !storage.keyboard.isSame(as: newValue) else { return }
            storage = Storage(keyboard: newValue, output: storage.output, layout: storage.layout, focus: storage.focus)
        }
    }

    /// The keyboard's id, read without a copy of the rest of its identity.
    package var keyboardID: String { storage.keyboard.id }

    /// The output it is on, when known.
    package var output: Output? {
        get { storage.output }
        set {
            guard !sameBits(newValue, storage.output), newValue != storage.output else { return }
            storage = Storage(
                keyboard: storage.keyboard, output: newValue, layout: storage.layout, focus: storage.focus)
        }
    }

    /// The active input layout, when known.
    package var layout: InputLayout? {
        get { storage.layout }
        set {
            guard !sameBits(newValue, storage.layout), newValue != storage.layout else { return }
            storage = Storage(
                keyboard: storage.keyboard, output: storage.output, layout: newValue, focus: storage.focus)
        }
    }

    /// What had the focus when it showed, when known.
    package var focus: FocusedTopLevel? {
        get { storage.focus }
        set {
            guard !sameBits(newValue, storage.focus), newValue != storage.focus else { return }
            storage = Storage(
                keyboard: storage.keyboard, output: storage.output, layout: storage.layout, focus: newValue)
        }
    }

    /// True when both share one storage: then they are equal without a look at their values.
    package func isShared(with other: KeyboardFacts) -> Bool { storage === other.storage }

    /// Takes `other`'s storage when the two hold the same values, so that the next comparison of
    /// the two needs no look at their values.
    package mutating func share(_ other: KeyboardFacts) {
        if storage !== other.storage, self == other { storage = other.storage }
    }

    /// Equal values; facts sharing one storage are equal at once.
    package static func == (lhs: KeyboardFacts, rhs: KeyboardFacts) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.storage.keyboard == rhs.storage.keyboard && lhs.storage.output == rhs.storage.output
                && lhs.storage.layout == rhs.storage.layout && lhs.storage.focus == rhs.storage.focus)
    }

    /// Hashes the values (what `==` compares).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(storage.keyboard)
        hasher.combine(storage.output)
        hasher.combine(storage.layout)
        hasher.combine(storage.focus)
    }
}

extension KeyboardIdentity {
    /// `==`, field by field in place: strings made from the same storage compare by their bits.
    fileprivate func isSame(as other: KeyboardIdentity) -> Bool {
        pid == other.pid && kind == other.kind && id == other.id && name == other.name
    }
}

/// True when `a` and `b` are the same bits. For the facts' values (strings, arrays, numbers) the
/// same bits are the same value, told without a look at what the strings and arrays hold; values
/// that differ only in padding are told apart by `==` after this (so it is not used for values
/// with padding).
@inline(__always)
private func sameBits<T>(_ a: T, _ b: T) -> Bool {
    withUnsafeBytes(of: a) { left in
        withUnsafeBytes(of: b) { right in
            left.count == right.count && memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
        }
    }
}
