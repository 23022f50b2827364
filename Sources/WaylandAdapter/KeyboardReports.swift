import KeyboardBackendInterface

/// Turns what the probes measure into observations of docked keyboards. Pure: it holds per
/// output the last usable area, the classifier and the keyboards reported, and says what to
/// deliver when an area, an output, the layout or what the keyboard services say changes, or an
/// output goes away.
///
/// Keyboard ids are `wayland:` + output name + edge: the id names the place, which stays stable
/// while the keyboard comes and goes. The name is the keyboard's when a running service claims
/// the edge (see ``ServiceClaim``), else "docked keyboard".
struct KeyboardReports: Sendable {
    /// A keyboard delivered as shown: where, under which identity, and how its frame was obtained
    /// (its hide carries the same identity, whatever the services say by then).
    private struct Reported: Sendable, Hashable {
        var frame: Rect
        var identity: KeyboardIdentity
        var geometry: GeometrySource
    }

    private struct Entry: Sendable {
        var output: Output?
        /// The usable area relative to the output's origin, while a probe measures it.
        var usable: Rect?
        var classifier = InsetClassifier()
        /// Keyboards delivered as shown, by edge, and the output they were delivered with.
        var reported: [Edge: Reported] = [:]
        var reportedOutput: Output?
        /// Plugged while watching: its panels arrive after its probe's first usable area.
        var plugged = false
        /// Until when every reservation on a plugged output counts as a panel.
        var panelsSettleUntil: Double?
        /// The edge of a keyboard that was already up when watching started (its service said
        /// so): the whole inset there is reported, as an upper bound, until the keyboard hides and
        /// the panels' share shows.
        var unsplitEdge: Edge?
    }

    /// Seconds after a plugged output's first usable area during which whatever it reserves is
    /// taken for panels. A panel program (swaybar) puts its bar on a new output only after the
    /// output appears, so the first usable area often has no bar yet: without this, the bar would
    /// be reported as a docked keyboard that never hides.
    static let panelSettleTime = 2.0

    private var entries: [UInt32: Entry] = [:]
    /// The seat's active layout, put on every observation.
    private(set) var layout: InputLayout?
    /// What the running keyboard services say (see ``ServiceClaim``).
    private(set) var claims: [ServiceClaim] = []
    /// Keyboards a service says are up where no reserved strip can be told as theirs: shown with
    /// an unknown frame, by service name.
    private var unplaced: [String: KeyboardIdentity] = [:]

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
                observation(edge: $0.key, shown: $0.value, output: output, time: time)
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
        var keyboards: [DockedKeyboard]
        if let until = entry.panelsSettleUntil, time <= until {
            entry.classifier.adopt(insets)
            keyboards = []
        } else if learn || entry.classifier.baseline == nil {
            keyboards = entry.classifier.classify(insets, output: output.frame)
        } else {
            keyboards = InsetClassifier.keyboards(insets, baseline: entry.classifier.baseline!, output: output.frame)
        }
        if let edge = entry.unsplitEdge {
            keyboards = unsplit(edge, &entry, insets: insets, output: output.frame, classified: keyboards)
        }
        var out: [KeyboardObservation] = []
        // Keyboard ids carry the output's name: when the output is renamed, the keyboards
        // reported under the old name are hidden before they reappear under the new one.
        if let previous = entry.reportedOutput, previous.name != output.name {
            for edge in entry.reported.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                out.append(observation(edge: edge, hidden: entry.reported[edge]!, output: previous, time: time))
            }
            entry.reported = [:]
        }
        let shown = Dictionary(uniqueKeysWithValues: keyboards.map { ($0.edge, $0) })
        for edge in entry.reported.keys.sorted(by: { $0.rawValue < $1.rawValue }) where shown[edge] == nil {
            out.append(
                observation(
                    edge: edge, hidden: entry.reported[edge]!, output: entry.reportedOutput ?? output, time: time))
            entry.reported[edge] = nil
        }
        for keyboard in keyboards {
            let geometry: GeometrySource = keyboard.isUpperBound ? .derivedUpperBound : .derived
            let previous = entry.reported[keyboard.edge]
            guard previous?.frame != keyboard.frame || previous?.geometry != geometry || entry.reportedOutput != output
            else { continue }
            let identity = previous?.identity ?? identity(edge: keyboard.edge, output: output)
            // A keyboard its service said was up somewhere unknown is now placed: the unplaced
            // one goes, so that the keyboard is not up twice.
            if previous == nil, let name = claims.claimant(at: keyboard.edge)?.name, let gone = unplaced[name] {
                out.append(unplacedObservation(gone, shown: false, time: time))
                unplaced[name] = nil
            }
            let reported = Reported(frame: keyboard.frame, identity: identity, geometry: geometry)
            out.append(observation(edge: keyboard.edge, shown: reported, output: output, time: time))
            entry.reported[keyboard.edge] = reported
        }
        entry.reportedOutput = output
        return out
    }

    /// The keyboards of an output whose `edge` still holds a keyboard that was up at start: the
    /// whole inset there, as an upper bound, until the inset shrinks while the keyboard's service
    /// no longer says it is up (it hid: what remains is panels, the baseline from now on).
    private func unsplit(
        _ edge: Edge, _ entry: inout Entry, insets: EdgeInsets, output: Rect, classified: [DockedKeyboard]
    ) -> [DockedKeyboard] {
        let before = entry.reported[edge]
        let inset = insets[edge]
        let shrank = before.map { inset < Self.depth(of: $0.frame, at: edge) } ?? false
        if inset == 0 || (shrank && claims.claimant(at: edge)?.isVisible != true) {
            entry.unsplitEdge = nil
            return classified
        }
        return classified.filter { $0.edge != edge }
            + [
                DockedKeyboard(
                    edge: edge, frame: InsetClassifier.frame(growth: inset, at: edge, of: output), isUpperBound: true)
            ]
    }

    private static func depth(of frame: Rect, at edge: Edge) -> Int {
        edge == .top || edge == .bottom ? frame.height : frame.width
    }

    /// The services' claims changed (a keyboard service started, ended or said something new).
    /// Strips already shown keep their identity; a keyboard shown as unplaced hides when its
    /// service no longer says it is up.
    mutating func servicesChanged(to claims: [ServiceClaim], time: Double) -> [KeyboardObservation] {
        self.claims = claims
        var out: [KeyboardObservation] = []
        // A keyboard up at start whose service now says it is hidden: whatever is reserved at its
        // edge now or from now on is the panels' (the zone may go before or after `Visible`; the
        // order depends on which connection the loop reads first). A service that stops running
        // says nothing of the sort: geometry decides then.
        for key in entries.keys.sorted() {
            guard let edge = entries[key]?.unsplitEdge, claims.claimant(at: edge)?.isVisible == false else { continue }
            entries[key]?.unsplitEdge = nil
            out += report(key, learn: false, time: time)
        }
        for name in unplaced.keys.sorted() where claims.first(where: { $0.name == name })?.isVisible != true {
            out.append(unplacedObservation(unplaced[name]!, shown: false, time: time))
            unplaced[name] = nil
        }
        return out
    }

    /// Called once the outputs present at start are measured (their insets are the baseline):
    /// a keyboard whose service says it is up now is a keyboard, not baseline. When exactly one
    /// output reserves space at the keyboard's edge, that space is the keyboard (an upper bound:
    /// a panel there cannot be told apart until the keyboard hides once); otherwise the keyboard
    /// is up at an unknown place.
    mutating func adoptVisibleKeyboards(time: Double) -> [KeyboardObservation] {
        var out: [KeyboardObservation] = []
        for claim in claims where claim.isVisible == true {
            let edges = claim.edge.map { [$0] } ?? Edge.allCases
            let places = entries.keys.sorted().flatMap { key in
                edges.compactMap { edge -> (UInt32, Edge)? in
                    guard let entry = entries[key], let output = entry.output, let usable = entry.usable,
                        entry.reported[edge] == nil
                    else { return nil }
                    let insets = InsetClassifier.insets(
                        usable: usable, outputWidth: output.frame.width, outputHeight: output.frame.height)
                    return insets[edge] > 0 ? (key, edge) : nil
                }
            }
            if places.count == 1, claims.claimant(at: places[0].1) == claim {
                entries[places[0].0]?.unsplitEdge = places[0].1
                out += report(places[0].0, learn: false, time: time)
            } else if unplaced[claim.name] == nil {
                let identity = KeyboardIdentity(id: "wayland:\(claim.name)", name: claim.name, pid: claim.pid)
                unplaced[claim.name] = identity
                out.append(unplacedObservation(identity, shown: true, time: time))
            }
        }
        return out
    }

    private mutating func hide(_ key: UInt32, time: Double) -> [KeyboardObservation] {
        guard let entry = entries[key], let output = entry.reportedOutput else { return [] }
        entries[key]?.reported = [:]
        entries[key]?.unsplitEdge = nil
        return entry.reported.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            observation(edge: $0.key, hidden: $0.value, output: output, time: time)
        }
    }

    /// The identity of a strip newly shown at `edge`: the place as id, the claimant's name and pid.
    private func identity(edge: Edge, output: Output) -> KeyboardIdentity {
        let id = "wayland:\(output.name):\(edge.rawValue)"
        guard let claim = claims.claimant(at: edge) else { return KeyboardIdentity(id: id, name: "docked keyboard") }
        return KeyboardIdentity(id: id, name: claim.name, pid: claim.pid)
    }

    private func observation(edge: Edge, shown: Reported, output: Output, time: Double) -> KeyboardObservation {
        KeyboardObservation(
            time: time, keyboard: shown.identity, frame: shown.frame, isDocked: true, dockedEdge: edge, output: output,
            geometry: shown.geometry, layout: layout)
    }

    private func observation(edge: Edge, hidden: Reported, output: Output, time: Double) -> KeyboardObservation {
        KeyboardObservation(
            time: time, keyboard: hidden.identity, frame: nil, isDocked: true, dockedEdge: edge, output: output,
            geometry: hidden.geometry, layout: layout)
    }

    private func unplacedObservation(_ identity: KeyboardIdentity, shown: Bool, time: Double) -> KeyboardObservation {
        KeyboardObservation(
            time: time, keyboard: identity, frame: nil, output: onlyOutput, geometry: .unknown, layout: layout,
            isShown: shown)
    }

    /// The output when there is exactly one.
    private var onlyOutput: Output? {
        let outputs = entries.values.compactMap(\.output)
        return outputs.count == 1 ? outputs[0] : nil
    }
}
