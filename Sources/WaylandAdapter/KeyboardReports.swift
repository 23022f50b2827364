import KeyboardAdapterCore

/// Turns what the probes measure into observations of docked keyboards. Pure: it holds per
/// output the last usable area, the classifier and the keyboards reported, and says what to
/// deliver when an area, an output or the layout changes, or an output goes away.
///
/// Keyboard ids are `wayland:` + output name + edge: the program behind a reserved strip is not
/// known, so the id names the place, which stays stable while the keyboard comes and goes.
struct KeyboardReports: Sendable {
    private struct Entry: Sendable {
        var output: Output?
        /// The usable area relative to the output's origin, while a probe measures it.
        var usable: Rect?
        var classifier = InsetClassifier()
        /// Keyboards delivered as shown, by edge, and the output they were delivered with.
        var reported: [Edge: Rect] = [:]
        var reportedOutput: Output?
        /// Plugged while watching: its panels arrive after its probe's first usable area.
        var plugged = false
        /// Until when every reservation on a plugged output counts as a panel.
        var panelsSettleUntil: Double?
    }

    /// Seconds after a plugged output's first usable area during which whatever it reserves is
    /// taken for panels. A panel program (swaybar) puts its bar on a new output only after the
    /// output appears, so the first usable area often has no bar yet: without this, the bar would
    /// be reported as a docked keyboard that never hides.
    static let panelSettleTime = 2.0

    private var entries: [UInt32: Entry] = [:]
    /// The seat's active layout, put on every observation.
    private(set) var layout: InputLayout?

    /// Output `key` announced or changed its name or frame. Keyboards move with it; what the
    /// classifier learnt (the panels) stays.
    mutating func outputChanged(_ key: UInt32, to output: Output, time: Double) -> [KeyboardObservation] {
        entries[key, default: Entry()].output = output
        return report(key, learn: false, time: time)
    }

    /// Output `key` was plugged while watching (not there at start): its panels are learnt for
    /// ``panelSettleTime`` seconds after its first usable area.
    mutating func outputPlugged(_ key: UInt32) {
        entries[key, default: Entry()].plugged = true
    }

    /// The probe on output `key` measured a new usable area (relative to the output's origin).
    mutating func usableAreaChanged(_ key: UInt32, to area: Rect, time: Double) -> [KeyboardObservation] {
        var entry = entries[key, default: Entry()]
        entry.usable = area
        if entry.plugged, entry.panelsSettleUntil == nil { entry.panelsSettleUntil = time + Self.panelSettleTime }
        entries[key] = entry
        return report(key, learn: true, time: time)
    }

    /// The probe on output `key` was closed: nothing is measured there until a new probe reports,
    /// so its keyboards are hidden.
    mutating func probeClosed(_ key: UInt32, time: Double) -> [KeyboardObservation] {
        entries[key]?.usable = nil
        return hide(key, time: time)
    }

    /// Output `key` went away: its keyboards are hidden and it is forgotten.
    mutating func outputRemoved(_ key: UInt32, time: Double) -> [KeyboardObservation] {
        defer { entries[key] = nil }
        return hide(key, time: time)
    }

    /// The seat's layout changed: every shown keyboard is delivered again with it.
    mutating func layoutChanged(to layout: InputLayout?, time: Double) -> [KeyboardObservation] {
        guard layout != self.layout else { return [] }
        self.layout = layout
        return entries.keys.sorted().flatMap { key -> [KeyboardObservation] in
            let entry = entries[key]!
            guard let output = entry.reportedOutput else { return [] }
            return entry.reported.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                observation(edge: $0.key, frame: $0.value, output: output, time: time)
            }
        }
    }

    /// Hides every shown keyboard (the connection broke).
    mutating func hideAll(time: Double) -> [KeyboardObservation] {
        entries.keys.sorted().flatMap { hide($0, time: time) }
    }

    /// The usable area of output `key` in global coordinates, when measured.
    func usableArea(of key: UInt32) -> Rect? {
        guard let entry = entries[key], let output = entry.output, let usable = entry.usable else { return nil }
        return usable.offsetBy(dx: output.frame.x, dy: output.frame.y)
    }

    /// Works out the keyboards on one output and returns what changed.
    private mutating func report(_ key: UInt32, learn: Bool, time: Double) -> [KeyboardObservation] {
        guard var entry = entries[key], let output = entry.output, let usable = entry.usable else { return [] }
        defer { entries[key] = entry }
        let insets = InsetClassifier.insets(
            usable: usable, outputWidth: output.frame.width, outputHeight: output.frame.height)
        let keyboards: [DockedKeyboard]
        if let until = entry.panelsSettleUntil, time <= until {
            entry.classifier.adopt(insets)
            keyboards = []
        } else if learn || entry.classifier.baseline == nil {
            keyboards = entry.classifier.classify(insets, output: output.frame)
        } else {
            keyboards = InsetClassifier.keyboards(insets, baseline: entry.classifier.baseline!, output: output.frame)
        }
        var out: [KeyboardObservation] = []
        // Keyboard ids carry the output's name: when the output is renamed, the keyboards
        // reported under the old name are hidden before they reappear under the new one.
        if let previous = entry.reportedOutput, previous.name != output.name {
            for edge in entry.reported.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                out.append(observation(edge: edge, frame: nil, output: previous, time: time))
            }
            entry.reported = [:]
        }
        let shown = Dictionary(uniqueKeysWithValues: keyboards.map { ($0.edge, $0.frame) })
        for edge in entry.reported.keys.sorted(by: { $0.rawValue < $1.rawValue }) where shown[edge] == nil {
            out.append(observation(edge: edge, frame: nil, output: entry.reportedOutput ?? output, time: time))
            entry.reported[edge] = nil
        }
        for keyboard in keyboards
        where entry.reported[keyboard.edge] != keyboard.frame || entry.reportedOutput != output {
            out.append(observation(edge: keyboard.edge, frame: keyboard.frame, output: output, time: time))
            entry.reported[keyboard.edge] = keyboard.frame
        }
        entry.reportedOutput = output
        return out
    }

    private mutating func hide(_ key: UInt32, time: Double) -> [KeyboardObservation] {
        guard let entry = entries[key], let output = entry.reportedOutput else { return [] }
        entries[key]?.reported = [:]
        return entry.reported.keys.sorted { $0.rawValue < $1.rawValue }.map {
            observation(edge: $0, frame: nil, output: output, time: time)
        }
    }

    private func observation(edge: Edge, frame: Rect?, output: Output, time: Double) -> KeyboardObservation {
        KeyboardObservation(
            time: time,
            keyboard: KeyboardIdentity(id: "wayland:\(output.name):\(edge.rawValue)", name: "docked keyboard"),
            frame: frame, isDocked: true, dockedEdge: edge, output: output, geometry: .derived, layout: layout)
    }
}
