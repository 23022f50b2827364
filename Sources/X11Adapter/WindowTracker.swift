import CX11
import KeyboardAdapterCore

/// Follows the windows of one X screen and turns what happens to keyboard windows into
/// observations. Runs on the backend's thread; all X access goes through its `XDisplay`.
///
/// Under a reparenting window manager the root window only sees frames: a client window is
/// followed through ReparentNotify, and its absolute position is its frame's position plus its
/// offset inside the frame, measured once per reparent (or when it moves inside the frame), so
/// that moving a frame costs no round trip.
final class WindowTracker {
    /// One window this tracker selected events on: a top-level (client or frame) or a client
    /// inside a frame.
    private struct Tracked {
        /// The immediate parent.
        var parent: Window
        /// Geometry relative to the parent, from real ConfigureNotify (outer corner; inner size).
        var x = 0, y = 0, width = 0, height = 0, border = 0
        var isMapped = false
        var overrideRedirect = false
        /// For a client inside a frame: the top-level (frame) it sits in, and the offset of its
        /// inner corner from the frame's outer corner.
        var frame: Window?
        var offsetInFrame: (x: Int, y: Int)?
        /// For a frame: the client it holds.
        var client: Window?
        /// Properties, read once when the window first matters, then kept up to date.
        var description: X11WindowDescription?
        var rule: KeyboardRule?
        /// Keyboard-only properties, read once the window is known to be a keyboard.
        var keyboard: KeyboardProperties?
        /// Whether this keyboard came up for the app, judged when it showed; nil while hidden.
        var isLocal: Bool?

        init(parent: Window) {
            self.parent = parent
        }
    }

    /// What only keyboards need read.
    private struct KeyboardProperties {
        var pid: Int32?
        var isIconic = false
        var strutPartial: [UInt]?
        var strut: [UInt]?
    }

    private let display: XDisplay
    private let rules: KeyboardRules
    private let deliver: (KeyboardObservation) -> Void
    private let appIdentity: () -> AppIdentity
    private var ownership = FocusOwnership()
    private var windows: [Window: Tracked] = [:]
    /// What was last delivered per keyboard window (with time 0), to drop repeats: ConfigureNotify
    /// arrives once through the root and once through the window itself.
    private var delivered: [Window: KeyboardObservation] = [:]
    /// Windows to observe again once the queue is drained, in the order they changed.
    private var dirty: [Window] = []
    private var dirtySet: Set<Window> = []
    /// Hides of keyboard windows destroyed since the last flush.
    private var gone: [KeyboardObservation] = []
    /// The whole screen (the root window), which struts are relative to.
    private var screen: Rect
    /// The monitors a keyboard can be on.
    private var monitors: MonitorLayout
    /// The active input layout, carried on every shown keyboard's observation; nil without XKB.
    private var layouts: XkbLayout?
    /// A group switch or a new `_XKB_RULES_NAMES` came: read the layout at the next flush, once.
    private var layoutPending = false

    /// Events asked for on every followed window: its own geometry and mapping, and its properties.
    private static let windowMask = StructureNotifyMask | PropertyChangeMask

    /// Properties that decide whether a window is a keyboard.
    private let describingAtoms: Set<Atom>
    /// Properties that only matter for keyboards.
    private let keyboardAtoms: Set<Atom>

    init(
        display: XDisplay, rules: KeyboardRules, appIdentity: @escaping () -> AppIdentity = { AppIdentity() },
        deliver: @escaping (KeyboardObservation) -> Void
    ) {
        self.display = display
        self.rules = rules
        self.deliver = deliver
        self.appIdentity = appIdentity
        let size = display.screenSize
        screen = Rect(x: 0, y: 0, width: size.width, height: size.height)
        monitors = MonitorLayout(monitors: [], screen: screen)
        describingAtoms = Set(
            ["WM_CLASS", "WM_NAME", "_NET_WM_NAME", "_NET_WM_WINDOW_TYPE", "WM_HINTS", "ONSCREEN_KEYBOARD"]
                .map { display.atom($0) })
        keyboardAtoms = Set(
            ["_NET_WM_PID", "WM_STATE", "_NET_WM_STRUT", "_NET_WM_STRUT_PARTIAL"].map { display.atom($0) })
    }

    // MARK: Start-up

    /// Selects events on the root and on every existing window, then reports the keyboards that
    /// are already visible.
    func start() {
        display.selectInput(display.root, SubstructureNotifyMask | StructureNotifyMask | PropertyChangeMask)
        ownership.activeWindowChanged(display)
        display.selectMonitorChanges()
        monitors = MonitorLayout(monitors: display.monitors(), screen: screen)
        layouts = XkbLayout(display: display)
        guard let topLevels = display.tree(of: display.root)?.children else { return }
        let wmState = display.atom("WM_STATE")
        for topLevel in topLevels {
            follow(topLevel, parent: display.root)
            refreshAttributes(topLevel)
            // Under a window manager the client is the window with WM_STATE: the top-level itself
            // or a window inside its frame.
            // Unmapped windows are described when they map, not now.
            if display.property(topLevel, wmState) == nil, let client = findClient(in: topLevel, depth: 2) {
                follow(client, parent: display.tree(of: client)?.parent ?? topLevel)
                attach(client: client, toFrame: topLevel)
                refreshAttributes(client)
                if windows[client]?.isMapped == true, windows[topLevel]?.isMapped == true {
                    describeIfNeeded(client)
                    evaluate(client)
                }
            } else if windows[topLevel]?.isMapped == true {
                describeIfNeeded(topLevel)
                evaluate(topLevel)
            }
        }
        flushObservations()
        display.flush()
    }

    private func findClient(in window: Window, depth: Int) -> Window? {
        guard depth > 0, let children = display.tree(of: window)?.children else { return nil }
        let wmState = display.atom("WM_STATE")
        for child in children.reversed() where display.property(child, wmState) != nil { return child }
        for child in children.reversed() {
            if let found = findClient(in: child, depth: depth - 1) { return found }
        }
        return nil
    }

    // MARK: Events

    /// Handles one X event.
    func handle(_ event: inout XEvent) {
        if display.isMonitorChange(&event) {
            monitorsChanged()
            return
        }
        if let layouts, layouts.isLayoutEvent(event) {
            if layouts.isGroupChange(event) { layoutPending = true }
            return
        }
        switch event.type {
        case CreateNotify:
            let e = event.xcreatewindow
            guard e.parent == display.root else { return }
            follow(e.window, parent: e.parent)
            windows[e.window]?.overrideRedirect = e.override_redirect != 0
            setGeometry(e.window, x: e.x, y: e.y, width: e.width, height: e.height, border: e.border_width)
        case DestroyNotify:
            forget(event.xdestroywindow.window)
        case ReparentNotify:
            let e = event.xreparent
            reparent(e.window, to: e.parent, x: Int(e.x), y: Int(e.y))
        case ConfigureNotify:
            let e = event.xconfigure
            if e.window == display.root {
                screenChanged(width: Int(e.width), height: Int(e.height))
            } else if e.send_event == 0 {
                // Synthetic ConfigureNotify from a window manager carries root coordinates of a
                // framed client; the real ones (parent-relative) and the frame's own configure
                // already say everything, so synthetic ones are not needed.
                configured(e.window, x: e.x, y: e.y, width: e.width, height: e.height, border: e.border_width)
            }
        case MapNotify:
            mapped(event.xmap.window, true)
        case UnmapNotify:
            // A synthetic UnmapNotify is a client's withdraw notice to the window manager; the
            // real unmap follows or preceded it.
            if event.xunmap.send_event == 0 { mapped(event.xunmap.window, false) }
        case PropertyNotify:
            let e = event.xproperty
            propertyChanged(e.window, e.atom)
        default:
            break
        }
    }

    /// The connection is gone: every keyboard that was shown is hidden.
    func hideAll() {
        let time = MonotonicClock.now()
        for (id, last) in delivered.sorted(by: { $0.key < $1.key }) where last.frame != nil {
            var hidden = last
            hidden.frame = nil
            hidden.time = time
            deliver(hidden)
            delivered[id] = hidden
        }
    }

    // MARK: Window bookkeeping

    private func follow(_ window: Window, parent: Window) {
        guard windows[window] == nil else {
            windows[window]?.parent = parent
            return
        }
        windows[window] = Tracked(parent: parent)
        display.selectInput(window, Self.windowMask)
    }

    private func refreshAttributes(_ window: Window) {
        guard let attributes = display.attributes(window) else { return }
        windows[window]?.isMapped = attributes.isMapped
        windows[window]?.overrideRedirect = attributes.overrideRedirect
        setGeometry(
            window, x: attributes.x, y: attributes.y, width: attributes.width, height: attributes.height,
            border: attributes.borderWidth)
    }

    private func setGeometry<T: BinaryInteger>(_ window: Window, x: T, y: T, width: T, height: T, border: T) {
        windows[window]?.x = Int(x)
        windows[window]?.y = Int(y)
        windows[window]?.width = Int(width)
        windows[window]?.height = Int(height)
        windows[window]?.border = Int(border)
    }

    private func forget(_ window: Window) {
        guard let tracked = windows.removeValue(forKey: window) else { return }
        if let frame = tracked.frame, windows[frame]?.client == window { windows[frame]?.client = nil }
        if let client = tracked.client, windows[client]?.frame == window {
            windows[client]?.frame = nil
            windows[client]?.offsetInFrame = nil
            evaluate(client)
        }
        if let last = delivered.removeValue(forKey: window), last.frame != nil {
            var hidden = last
            hidden.frame = nil
            gone.append(hidden)
        }
    }

    private func attach(client: Window, toFrame frame: Window) {
        if let old = windows[client]?.frame, old != frame, windows[old]?.client == client { windows[old]?.client = nil }
        windows[client]?.frame = frame
        windows[frame]?.client = client
        measureOffset(client)
    }

    /// The client's outer corner relative to its frame's outer corner. The position comes from one
    /// request, so it is consistent even while the window manager moves the frame; the borders
    /// (which rarely change) from two more.
    private func measureOffset(_ client: Window) {
        guard let frame = windows[client]?.frame,
            let inner = display.position(of: client, in: frame),
            let own = display.geometry(of: client),
            let outer = display.geometry(of: frame)
        else {
            windows[client]?.offsetInFrame = nil
            return
        }
        windows[client]?.offsetInFrame = (inner.x + outer.border - own.border, inner.y + outer.border - own.border)
        windows[client]?.border = own.border
        windows[frame]?.border = outer.border
    }

    /// The root-level ancestor of `window`.
    private func topLevel(of window: Window) -> Window? {
        var current = window
        for _ in 0..<8 {
            if let tracked = windows[current], tracked.parent == display.root { return current }
            guard let parent = display.tree(of: current)?.parent, parent != 0 else { return nil }
            if parent == display.root { return current }
            current = parent
        }
        return nil
    }

    private func reparent(_ window: Window, to parent: Window, x: Int, y: Int) {
        if parent == display.root {
            // Withdrawn by the window manager (or never framed): a top-level again.
            follow(window, parent: parent)
            if let frame = windows[window]?.frame, windows[frame]?.client == window { windows[frame]?.client = nil }
            windows[window]?.frame = nil
            windows[window]?.offsetInFrame = nil
            windows[window]?.x = x
            windows[window]?.y = y
            evaluate(window)
            return
        }
        guard let frame = topLevel(of: parent) else { return }
        follow(window, parent: parent)
        if let tracked = windows[window] {
            windows[window]?.x = x
            windows[window]?.y = y
            // The window may have been mapped inside the frame before this connection selected
            // its events; the server knows.
            if tracked.description == nil { refreshAttributes(window) }
        }
        attach(client: window, toFrame: frame)
        describeIfNeeded(window)
        evaluate(window)
    }

    private func configured(_ window: Window, x: Int32, y: Int32, width: Int32, height: Int32, border: Int32) {
        guard let tracked = windows[window] else { return }
        let moved = Int(x) != tracked.x || Int(y) != tracked.y || Int(border) != tracked.border
        let resized = Int(width) != tracked.width || Int(height) != tracked.height
        guard moved || resized else { return }
        setGeometry(window, x: x, y: y, width: width, height: height, border: border)
        if tracked.frame != nil, moved {
            // Moved inside its frame (new decorations): measure the offset again.
            measureOffset(window)
        }
        if let client = tracked.client {
            evaluate(client)
        } else {
            evaluate(window)
        }
    }

    private func mapped(_ window: Window, _ isMapped: Bool) {
        guard let tracked = windows[window], tracked.isMapped != isMapped else { return }
        windows[window]?.isMapped = isMapped
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
        let layout = MonitorLayout(monitors: display.monitors(), screen: screen)
        guard layout != monitors else { return }
        monitors = layout
        for window in delivered.keys.sorted() { evaluate(window) }
    }

    /// A layout switch or a new keymap: the keyboards already shown are observed again with the
    /// new layout (the tracker reports it as a layout change, not as a frame change).
    private func layoutChanged() {
        guard let layouts, layouts.refresh(display) else { return }
        for window in delivered.keys.sorted() { evaluate(window) }
    }

    // MARK: Properties

    /// Reads what decides whether the window is a keyboard, once per window.
    private func describeIfNeeded(_ window: Window) {
        guard let tracked = windows[window], tracked.description == nil, tracked.client == nil else { return }
        windows[window]?.description = describe(window, overrideRedirect: tracked.overrideRedirect)
        classify(window)
    }

    private func describe(_ window: Window, overrideRedirect: Bool) -> X11WindowDescription {
        var description = X11WindowDescription(overrideRedirect: overrideRedirect)
        for name in ["WM_CLASS", "_NET_WM_NAME", "_NET_WM_WINDOW_TYPE", "WM_HINTS", "ONSCREEN_KEYBOARD"] {
            read(name, of: window, into: &description)
        }
        return description
    }

    /// Reads one property that decides whether the window is a keyboard.
    private func read(_ property: String, of window: Window, into description: inout X11WindowDescription) {
        switch property {
        case "WM_CLASS":
            let wmClass = display.windowClass(window)
            description.instance = wmClass?.instance
            description.windowClass = wmClass?.windowClass
        case "WM_NAME", "_NET_WM_NAME":
            description.title = display.text(window, "_NET_WM_NAME") ?? display.text(window, "WM_NAME")
        case "_NET_WM_WINDOW_TYPE":
            // EWMH defines about a dozen types and a window has one or two: the first few are read,
            // so that a window listing thousands of atoms costs a few round trips at most.
            description.windowTypes = (display.values(window, "_NET_WM_WINDOW_TYPE", maxItems: 16) ?? []).compactMap {
                display.atomName(Atom($0))
            }
        case "WM_HINTS":
            // WM_HINTS: flags first, then the input field (InputHint is bit 0).
            let hints = display.values(window, "WM_HINTS")
            description.acceptsInput = hints.flatMap { $0.count >= 2 && $0[0] & 1 != 0 ? $0[1] != 0 : nil }
        case "ONSCREEN_KEYBOARD":
            description.onscreenKeyboard = display.values(window, "ONSCREEN_KEYBOARD")?.first
        default:
            break
        }
    }

    /// Reads one property that only matters for keyboards.
    private func read(_ property: String, of window: Window, into keyboard: inout KeyboardProperties) {
        switch property {
        case "_NET_WM_PID":
            keyboard.pid = display.values(window, "_NET_WM_PID")?.first.flatMap { Int32(exactly: $0) }
        case "WM_STATE":
            keyboard.isIconic = display.values(window, "WM_STATE")?.first == UInt(IconicState)
        case "_NET_WM_STRUT_PARTIAL":
            keyboard.strutPartial = display.values(window, "_NET_WM_STRUT_PARTIAL")
        case "_NET_WM_STRUT":
            keyboard.strut = display.values(window, "_NET_WM_STRUT")
        default:
            break
        }
    }

    private func classify(_ window: Window) {
        guard let description = windows[window]?.description else { return }
        let rule = rules.match(description)
        windows[window]?.rule = rule
        if rule != nil, windows[window]?.keyboard == nil {
            var keyboard = KeyboardProperties()
            for name in ["_NET_WM_PID", "WM_STATE", "_NET_WM_STRUT_PARTIAL", "_NET_WM_STRUT"] {
                read(name, of: window, into: &keyboard)
            }
            windows[window]?.keyboard = keyboard
        }
    }

    private func propertyChanged(_ window: Window, _ atom: Atom) {
        if window == display.root {
            if atom == display.atom("_NET_ACTIVE_WINDOW") { ownership.activeWindowChanged(display) }
            if atom == display.atom("_XKB_RULES_NAMES") { layoutPending = true }
            return
        }
        // Only what is already known is kept up to date: the rest is read when it first matters.
        guard describingAtoms.contains(atom) || keyboardAtoms.contains(atom),
            let tracked = windows[window], var description = tracked.description,
            let name = display.atomName(atom)
        else { return }
        if describingAtoms.contains(atom) {
            read(name, of: window, into: &description)
            guard description != tracked.description else { return }
            windows[window]?.description = description
            classify(window)
        } else if keyboardAtoms.contains(atom), var keyboard = tracked.keyboard {
            read(name, of: window, into: &keyboard)
            windows[window]?.keyboard = keyboard
        } else {
            return
        }
        evaluate(window)
    }

    // MARK: Observations

    /// The client's absolute geometry as `xwininfo -id` reports it: the root position of its outer
    /// corner (border included) and its inner size.
    private func absoluteFrame(_ tracked: Tracked) -> Rect? {
        if tracked.parent == display.root {
            return Rect(x: tracked.x, y: tracked.y, width: tracked.width, height: tracked.height)
        }
        guard let frame = tracked.frame, let offset = tracked.offsetInFrame, let outer = windows[frame] else {
            return nil
        }
        return Rect(x: outer.x + offset.x, y: outer.y + offset.y, width: tracked.width, height: tracked.height)
    }

    /// Whether the client's frame is big enough to hold it. Window managers animate iconify and
    /// restore by shrinking and moving the frame around the (unchanged) client; while the frame
    /// cannot hold the client, its geometry says nothing about where the keyboard will be.
    private func frameHolds(_ tracked: Tracked) -> Bool {
        guard let frame = tracked.frame.flatMap({ windows[$0] }), let offset = tracked.offsetInFrame else {
            return true
        }
        return offset.x >= 0 && offset.y >= 0
            && offset.x + tracked.width + 2 * tracked.border <= frame.width + 2 * frame.border
            && offset.y + tracked.height + 2 * tracked.border <= frame.height + 2 * frame.border
    }

    /// Notes that a window's observation may have changed; it is worked out once the queued
    /// events are drained, so a burst of events costs one observation per window.
    private func evaluate(_ window: Window) {
        if dirtySet.insert(window).inserted { dirty.append(window) }
    }

    /// Delivers what changed since the last call: every hide first, then every show or move, so
    /// that a keyboard replacing another (onboard recreating its window) never overlaps it.
    func flushObservations() {
        if layoutPending {
            layoutPending = false
            layoutChanged()
        }
        var hides = gone
        var shows: [KeyboardObservation] = []
        gone.removeAll()
        for window in dirty {
            guard let observation = observe(window) else { continue }
            if observation.frame == nil { hides.append(observation) } else { shows.append(observation) }
        }
        dirty.removeAll(keepingCapacity: true)
        dirtySet.removeAll(keepingCapacity: true)
        let time = MonotonicClock.now()
        for var observation in hides + shows {
            observation.time = time
            deliver(observation)
        }
    }

    /// The keyboard window's current observation, when it differs from the last one delivered.
    private func observe(_ window: Window) -> KeyboardObservation? {
        guard let tracked = windows[window] else { return nil }
        guard let rule = tracked.rule, let keyboard = tracked.keyboard else {
            // No longer a keyboard (its class changed): it is gone as far as anyone can tell.
            guard let last = delivered.removeValue(forKey: window), last.frame != nil else { return nil }
            var hidden = last
            hidden.frame = nil
            return hidden
        }
        let frameMapped = tracked.frame.map { windows[$0]?.isMapped ?? false } ?? true
        let isShown = tracked.isMapped && frameMapped && !keyboard.isIconic
        // Mid-animation or mid-resize (the frame shrank before the client did): wait for the
        // geometry to make sense again rather than report a frame the keyboard never has.
        if isShown, !frameHolds(tracked) { return nil }
        if !isShown {
            windows[window]?.isLocal = nil
        } else if delivered[window]?.frame == nil {
            // Showing now: judge ownership by the focus at this moment, once per show.
            // Computed first: an optional-chained assignment would hold `windows` while the
            // judgement reads it.
            let isLocal = ownership.isLocal(
                keyboard: window, keyboardFrame: tracked.frame, app: appIdentity(), display: display,
                topLevel: { self.topLevel(of: $0) }, clientOf: { self.windows[$0]?.client })
            windows[window]?.isLocal = isLocal
        }
        let identity = KeyboardIdentity(
            id: "x11:0x" + String(window, radix: 16), name: rule.name, kind: rule.kind, pid: keyboard.pid)
        var observation = KeyboardObservation(
            time: 0, keyboard: identity, frame: nil, output: delivered[window]?.output,
            geometry: .reported)
        if isShown, let frame = absoluteFrame(tracked) {
            // Struts are relative to the screen; docking is judged on the keyboard's own monitor.
            let output = monitors.output(for: frame)
            let verdict = DockingVerdict.judge(
                isDockType: tracked.description?.windowTypes.contains("_NET_WM_WINDOW_TYPE_DOCK") ?? false,
                strut: Strut(
                    partial: keyboard.strutPartial, plain: keyboard.strut,
                    width: screen.width, height: screen.height),
                frame: frame, output: output.frame)
            observation.output = output
            observation.frame = frame
            observation.isDocked = verdict.isDocked
            observation.dockedEdge = verdict.edge
            observation.isLocal = windows[window]?.isLocal
            observation.layout = layouts?.current
        }
        if let last = delivered[window] {
            var comparable = last
            comparable.time = 0
            if comparable == observation { return nil }
        } else if observation.frame == nil {
            // Never shown and still hidden: nothing to say.
            return nil
        }
        delivered[window] = observation
        return observation
    }
}
