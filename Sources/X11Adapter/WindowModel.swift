import KeyboardBackendInterface

/// Follows the windows of one X screen and turns what happens to keyboard windows into
/// observations. It is fed decoded events and asks the server only through `WindowServer`, so
/// that it runs on an X connection and on a server kept in memory alike. Used on one thread.
final class WindowModel<Server: WindowServer> {
    private let server: Server
    private let rules: KeyboardRules
    private let deliver: (KeyboardObservation) -> Void
    private let appIdentity: () -> AppIdentity
    private var ownership = FocusOwnership()
    /// The followed windows.
    private(set) var tree: WindowTree<Server>
    /// What was delivered, and what changed since.
    private var batch = ObservationBatch()
    /// The list the marked windows are taken into at a flush, kept with its room between flushes.
    private var dirtyWindows: [WindowID] = []
    /// The last flush's list of shows and moves, emptied, for the next flush.
    private var spareShows: [KeyboardObservation] = []
    /// The whole screen (the root window), which struts are relative to.
    private(set) var screen: Rect
    /// The monitors a keyboard can be on.
    private(set) var monitors: MonitorLayout
    /// The active input layout, carried on every shown keyboard's observation; nil without XKB.
    private var layouts: (any InputLayoutSource)?
    /// A group switch or a new `_XKB_RULES_NAMES` came: read the layout at the next flush, once.
    private var layoutPending = false
    /// Properties that decide whether a window is a keyboard.
    private let describingAtoms: [AtomID]
    /// Properties that only matter for keyboards.
    private let keyboardAtoms: [AtomID]

    /// A model of `server`'s screen that recognises keyboards by `rules`, judges them local for
    /// `appIdentity` and hands every observation to `deliver`.
    init(
        server: Server, rules: KeyboardRules, appIdentity: @escaping () -> AppIdentity = { AppIdentity() },
        deliver: @escaping (KeyboardObservation) -> Void
    ) {
        self.server = server
        self.rules = rules
        self.deliver = deliver
        self.appIdentity = appIdentity
        tree = WindowTree(server: server)
        let size = server.screenSize
        screen = Rect(x: 0, y: 0, width: size.width, height: size.height)
        monitors = MonitorLayout(monitors: [], screen: screen)
        server.prepareAtoms()
        // A handful each: looked through, not hashed.
        describingAtoms = FollowedProperties.describing.map { server.atom($0) }
        keyboardAtoms = FollowedProperties.keyboard.map { server.atom($0) }
    }

    // MARK: Start-up

    /// Selects events on the root and on every existing window, then reports the keyboards that
    /// are already visible.
    func start() {
        server.selectRootEvents()
        ownership.activeWindowChanged(server)
        monitors = MonitorLayout(monitors: server.monitors(), screen: screen)
        layouts = server.followInputLayout()
        let root = tree.root
        guard let topLevels = server.tree(of: root)?.children else { return }
        let wmState = server.atom("WM_STATE")
        for topLevel in topLevels {
            tree.follow(topLevel, parent: root)
            tree.refreshAttributes(topLevel)
            // Under a window manager the client is the window with WM_STATE: the top-level itself
            // or a window inside its frame.
            // Unmapped windows are described when they map, not now.
            if server.property(topLevel, wmState, maxItems: 64) == nil,
                let client = tree.findClient(in: topLevel, depth: 2)
            {
                tree.follow(client, parent: server.tree(of: client)?.parent ?? topLevel)
                tree.attach(client: client, toFrame: topLevel)
                tree.refreshAttributes(client)
                if tree.windows[client]?.isMapped == true, tree.windows[topLevel]?.isMapped == true {
                    describeIfNeeded(client)
                    evaluate(client)
                }
            } else if tree.windows[topLevel]?.isMapped == true {
                describeIfNeeded(topLevel)
                evaluate(topLevel)
            }
        }
        flushObservations()
        server.flush()
    }

    // MARK: Events

    /// Handles one event.
    func handle(_ event: X11WindowEvent) {
        switch event {
        case .created(let window, let parent, let geometry, let overrideRedirect):
            guard parent == tree.root else { return }
            tree.follow(window, parent: parent)
            tree.windows[window]?.overrideRedirect = overrideRedirect
            tree.setGeometry(window, geometry)
        case .destroyed(let window):
            forget(window)
        case .reparented(let window, let parent, let x, let y):
            reparent(window, to: parent, x: Int(x), y: Int(y))
        case .configured(let window, let geometry, let synthetic):
            if window == tree.root {
                screenChanged(width: Int(geometry.width), height: Int(geometry.height))
            } else if !synthetic {
                // Synthetic ConfigureNotify from a window manager carries root coordinates of a
                // framed client; the real ones (parent-relative) and the frame's own configure
                // already say everything, so synthetic ones are not needed.
                configured(window, geometry)
            }
        case .mapped(let window):
            mapped(window, true)
        case .unmapped(let window, let synthetic):
            // A synthetic UnmapNotify is a client's withdraw notice to the window manager; the
            // real unmap follows or preceded it.
            if !synthetic { mapped(window, false) }
        case .propertyChanged(let window, let atom):
            propertyChanged(window, atom)
        case .monitorsChanged:
            monitorsChanged()
        case .layoutGroupChanged:
            layoutPending = true
        }
    }

    /// The connection is gone: every keyboard that was shown is hidden.
    func hideAll() {
        for hidden in batch.hideAll(at: MonotonicClock.now()) { deliver(hidden) }
    }

    private func forget(_ window: WindowID) {
        guard tree.windows[window] != nil else { return }
        if let client = tree.forget(window) { evaluate(client) }
        batch.windowDestroyed(window)
    }

    private func reparent(_ window: WindowID, to parent: WindowID, x: Int, y: Int) {
        if parent == tree.root {
            tree.unframe(window, x: x, y: y)
            evaluate(window)
            return
        }
        guard let frame = tree.topLevel(of: parent) else { return }
        tree.follow(window, parent: parent)
        if let tracked = tree.windows[window] {
            tree.windows[window]?.x = x
            tree.windows[window]?.y = y
            // The window may have been mapped inside the frame before this connection selected
            // its events; the server knows.
            if tracked.description == nil { tree.refreshAttributes(window) }
        }
        tree.attach(client: window, toFrame: frame)
        describeIfNeeded(window)
        evaluate(window)
    }

    private func configured(_ window: WindowID, _ geometry: X11Geometry) {
        guard let change = tree.configure(window, geometry) else { return }
        if change.isFramed, change.moved {
            // Moved inside its frame (new decorations): measure the offset again.
            tree.measureOffset(window)
        }
        evaluate(change.client ?? window)
    }

    private func mapped(_ window: WindowID, _ isMapped: Bool) {
        guard let tracked = tree.windows[window], tracked.isMapped != isMapped else { return }
        tree.windows[window]?.isMapped = isMapped
        if let client = tracked.client {
            describeIfNeeded(client)
            evaluate(client)
        } else {
            if isMapped { describeIfNeeded(window) }
            evaluate(window)
        }
    }

    private func screenChanged(width: Int, height: Int) {
        let frame = Rect(x: 0, y: 0, width: width, height: height)
        guard frame != screen else { return }
        screen = frame
        monitorsChanged()
    }

    /// Reads the monitors again; every keyboard shown is observed again when they changed.
    private func monitorsChanged() {
        let layout = MonitorLayout(monitors: server.monitors(), screen: screen)
        guard layout != monitors else { return }
        monitors = layout
        batch.markAllDelivered()
    }

    /// A layout switch or a new keymap: the keyboards already shown are observed again with the
    /// new layout (the tracker reports it as a layout change, not as a frame change).
    private func layoutChanged() {
        guard let layouts, layouts.refresh() else { return }
        batch.markAllDelivered()
    }

    // MARK: Properties

    /// Reads what decides whether the window is a keyboard, once per window.
    private func describeIfNeeded(_ window: WindowID) {
        guard let tracked = tree.windows[window], tracked.description == nil, tracked.client == nil else { return }
        let description = server.describe(window, overrideRedirect: tracked.overrideRedirect)
        tree.windows[window]?.description = description
        classify(window)
    }

    private func classify(_ window: WindowID) {
        guard let description = tree.windows[window]?.description else { return }
        let rule = rules.match(description)
        tree.windows[window]?.rule = rule
        if rule != nil, tree.windows[window]?.keyboard == nil {
            let keyboard = server.keyboardProperties(of: window)
            tree.windows[window]?.keyboard = keyboard
        }
    }

    private func propertyChanged(_ window: WindowID, _ atom: AtomID) {
        if window == tree.root {
            if atom == server.atom("_NET_ACTIVE_WINDOW") { ownership.activeWindowChanged(server) }
            if atom == server.atom("_XKB_RULES_NAMES") { layoutPending = true }
            return
        }
        // Only what is already known is kept up to date: the rest is read when it first matters.
        guard describingAtoms.contains(atom) || keyboardAtoms.contains(atom),
            let tracked = tree.windows[window], var description = tracked.description,
            let name = server.atomName(atom)
        else { return }
        if describingAtoms.contains(atom) {
            server.read(name, of: window, into: &description)
            guard description != tracked.description else { return }
            tree.windows[window]?.description = description
            classify(window)
        } else if keyboardAtoms.contains(atom), var keyboard = tracked.keyboard {
            server.read(name, of: window, into: &keyboard)
            tree.windows[window]?.keyboard = keyboard
        } else {
            return
        }
        evaluate(window)
    }

    // MARK: Observations

    /// Notes that a window's observation may have changed; it is worked out at the next flush.
    private func evaluate(_ window: WindowID) {
        batch.markDirty(window)
    }

    /// Whether `flushObservations()` has anything to look at.
    var hasObservationsToFlush: Bool { layoutPending || !batch.isEmpty }

    /// Delivers what changed since the last call: every hide first, then every show or move, so
    /// that a keyboard replacing another (onboard recreating its window) never overlaps it.
    func flushObservations() {
        if layoutPending {
            layoutPending = false
            layoutChanged()
        }
        var hides = batch.takeGone()
        var dirty = dirtyWindows
        dirtyWindows = []
        batch.takeDirty(into: &dirty)
        var shows = spareShows
        spareShows = []
        for window in dirty {
            guard let observation = observe(window) else { continue }
            if observation.frame == nil { hides.append(observation) } else { shows.append(observation) }
        }
        // Kept for the next flush, so that marking a window again costs no allocation.
        dirty.removeAll(keepingCapacity: true)
        dirtyWindows = dirty
        let time = MonotonicClock.now()
        // Stamped and handed on where they are, not copied out of the lists.
        for index in hides.indices {
            hides[index].time = time
            deliver(hides[index])
        }
        for index in shows.indices {
            shows[index].time = time
            deliver(shows[index])
        }
        shows.removeAll(keepingCapacity: true)
        spareShows = shows
    }

    /// The keyboard window's current observation, when it differs from the last one delivered.
    /// The window's record is read once; only a show or a hide writes to it.
    private func observe(_ window: WindowID) -> KeyboardObservation? {
        guard let index = tree.windows.index(forKey: window) else { return nil }
        let tracked = tree.windows.values[index]
        guard let rule = tracked.ruleKeyboard, let keyboard = tracked.keyboard else {
            // No longer a keyboard (its class changed): it is gone as far as anyone can tell.
            return batch.forget(window)
        }
        let id = tracked.keyboardID ?? "x11:0x" + String(window, radix: 16)
        if tracked.keyboardID == nil { tree.windows.values[index].keyboardID = id }
        let isShown = tree.isMappedWithFrame(tracked) && !keyboard.isIconic
        // Mid-animation or mid-resize (the frame shrank before the client did): wait for the
        // geometry to make sense again rather than report a frame the keyboard never has.
        if isShown, !tree.frameHolds(tracked) { return nil }
        let last = batch.delivered[window]
        var isLocal = tracked.isLocal
        var focus = tracked.focus
        if !isShown {
            if isLocal != nil || focus != nil {
                isLocal = nil
                focus = nil
                tree.windows[window]?.isLocal = nil
                tree.windows[window]?.focus = nil
            }
        } else if last?.frame == nil {
            // Showing now: judge ownership by the focus at this moment, once per show.
            // Computed first: an optional-chained assignment would hold `tree` while the
            // judgement reads it.
            focus = ownership.focusedTopLevel(
                keyboard: window, keyboardFrame: tracked.frame, server: server,
                topLevel: { self.tree.topLevel(of: $0) }, clientOf: { self.tree.windows[$0]?.client })
            isLocal = appIdentity().isLocal(given: focus)
            tree.windows[window]?.isLocal = isLocal
            tree.windows[window]?.focus = focus
        }
        // Built from the last observation's facts: what did not change keeps their storage, so
        // that the tracker and the events share it.
        let identity = KeyboardIdentity(id: id, name: rule.name, kind: rule.kind, pid: keyboard.pid)
        var facts = last?.facts ?? KeyboardFacts(keyboard: identity, output: nil, layout: nil, focus: nil)
        facts.keyboard = identity
        var observation = KeyboardObservation(time: 0, facts: facts, frame: nil, geometry: .reported)
        if isShown, let window = tree.absoluteFrame(tracked) {
            // What an app must keep clear of is what the keyboard covers: its window manager's
            // frame (title bar, borders) included. Its own window travels beside it.
            let frame = tree.coveredFrame(tracked, window: window, extents: keyboard.frameExtents)
            // Struts are relative to the screen; docking is judged on the keyboard's own monitor.
            let output = monitors.output(for: frame)
            let verdict = DockingVerdict.judge(
                isDockType: tracked.isDockType,
                strut: Strut(
                    partial: keyboard.strutPartial, plain: keyboard.strut,
                    width: screen.width, height: screen.height),
                frame: frame, output: output.frame)
            observation.output = output
            observation.frame = frame
            observation.windowFrame = window == frame ? nil : window
            observation.isDocked = verdict.isDocked
            observation.dockedEdge = verdict.edge
            observation.isLocal = isLocal
            observation.focus = focus
            observation.layout = layouts?.current
        } else {
            observation.focus = nil
            observation.layout = nil
        }
        return batch.record(observation, for: window) ? observation : nil
    }
}
