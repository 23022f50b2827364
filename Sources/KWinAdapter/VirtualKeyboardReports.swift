import KeyboardBackendInterface

/// Turns what KWin says about its virtual keyboard into observations. Pure: it holds whether
/// the keyboard is up, the outputs and the seat's layout, and says what to deliver when one
/// changes.
///
/// KWin's service tells whether its input method's panel is visible, never where: without the
/// package's KWin script an observation has no frame and geometry `.unknown`, with the output when
/// there is only one (KWin shows the panel on the active output, which a client cannot learn).
/// With the script (KWin 6) the panel's window decides: up while it exists, at its frame, on its
/// output, geometry `.derived`, and `isLocal` judged by the focused window when it shows.
struct VirtualKeyboardReports: Sendable {
    /// The keyboard's identity: one id for KWin's virtual keyboard, whatever input method it runs.
    let identity: KeyboardIdentity
    private(set) var isShown = false
    /// What the KWin script reports, while it runs.
    private var companion: CompanionReport?
    /// Whether the keyboard came up for the app, judged when it showed, and the focus it was
    /// judged by.
    private var verdict: (isLocal: Bool?, focus: FocusedTopLevel?)?
    private var outputs: [UInt32: Output] = [:]
    private(set) var layout: InputLayout?
    /// What was delivered last, to deliver only changes.
    private var delivered: KeyboardObservation?

    init(identity: KeyboardIdentity) { self.identity = identity }

    /// KWin's `visible` changed (or was read at start), or what its script reports; `app` is
    /// asked when the keyboard shows.
    mutating func serviceChanged(
        visible: Bool, companion: CompanionReport?, time: Double, app: () -> AppIdentity = { AppIdentity() }
    ) -> [KeyboardObservation] {
        self.companion = companion
        let shown = companion.map { $0.panel != nil } ?? visible
        if shown && !isShown {
            let focus = companion?.focusedTopLevel
            verdict = (app().isLocal(given: focus), focus)
        }
        isShown = shown
        return report(time: time)
    }

    /// KWin's `visible` changed, with no script.
    mutating func visibilityChanged(to visible: Bool, time: Double) -> [KeyboardObservation] {
        serviceChanged(visible: visible, companion: nil, time: time)
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

    /// The output the keyboard is on, when that is certain: the one the script names, or the only one.
    var output: Output? {
        if let name = companion?.panel?.outputName, let named = outputs.values.first(where: { $0.name == name }) {
            return named
        }
        return outputs.count == 1 ? outputs.values.first : nil
    }

    private mutating func report(time: Double) -> [KeyboardObservation] {
        let panel = isShown ? companion?.panel : nil
        let output = isShown ? output : delivered?.output
        let edge = panel.flatMap { panel in output.flatMap { panel.frame.dockedEdge(in: $0.frame) } }
        var next = KeyboardObservation(
            time: time, keyboard: identity, frame: panel?.frame, isDocked: panel.map { _ in edge != nil },
            dockedEdge: edge, output: output, geometry: companion == nil ? .unknown : .derived,
            isLocal: verdict?.isLocal ?? nil, layout: layout, isShown: isShown, focus: verdict?.focus ?? nil)
        if !isShown {
            next.geometry = delivered?.geometry ?? next.geometry
            verdict = nil
        }
        // Nothing to say while it stays hidden, or when nothing but the time changed.
        guard isShown || delivered?.isShown == true else { return [] }
        var previous = delivered
        previous?.time = time
        guard previous != next else { return [] }
        delivered = next
        return [next]
    }
}
