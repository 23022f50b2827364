import KeyboardAdapterCore

/// Turns what KWin says about its virtual keyboard into observations. Pure: it holds whether
/// the keyboard is up, the outputs and the seat's layout, and says what to deliver when one
/// changes.
///
/// KWin tells whether its input method's panel is visible, never where: every observation has
/// no frame and geometry `.unknown`, with the output when there is only one (KWin shows the panel
/// on the active output, which a client cannot learn).
struct VirtualKeyboardReports: Sendable {
    /// The keyboard's identity: one id for KWin's virtual keyboard, whatever input method it runs.
    let identity: KeyboardIdentity
    private(set) var isShown = false
    private var outputs: [UInt32: Output] = [:]
    private(set) var layout: InputLayout?
    /// What was delivered last, to deliver only changes.
    private var delivered: KeyboardObservation?

    init(identity: KeyboardIdentity) { self.identity = identity }

    /// KWin's `visible` changed (or was read at start).
    mutating func visibilityChanged(to visible: Bool, time: Double) -> [KeyboardObservation] {
        isShown = visible
        return report(time: time)
    }

    /// Output `key` was announced or changed; nil when it went away.
    mutating func outputChanged(_ key: UInt32, to output: Output?, time: Double) -> [KeyboardObservation] {
        outputs[key] = output
        return report(time: time)
    }

    /// The seat's layout changed.
    mutating func layoutChanged(to layout: InputLayout?, time: Double) -> [KeyboardObservation] {
        self.layout = layout
        return report(time: time)
    }

    /// The output the keyboard is on, when that is certain: the only one.
    var output: Output? {
        outputs.count == 1 ? outputs.values.first : nil
    }

    private mutating func report(time: Double) -> [KeyboardObservation] {
        let next = KeyboardObservation(
            time: time, keyboard: identity, frame: nil, output: isShown ? output : delivered?.output,
            geometry: .unknown, layout: layout, isShown: isShown)
        // Nothing to say while it stays hidden, or when nothing but the time changed.
        guard isShown || delivered?.isShown == true else { return [] }
        var previous = delivered
        previous?.time = time
        guard previous != next else { return [] }
        delivered = next
        return [next]
    }
}
