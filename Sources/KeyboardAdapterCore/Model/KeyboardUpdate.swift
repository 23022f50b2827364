import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One keyboard event with everything known about the keyboard at that moment: what UIKit puts in
/// a keyboard notification's `userInfo`, and what Linux adds (docking, ownership, output, layout,
/// provenance).
public struct KeyboardUpdate: Sendable, Hashable {
    /// Which of the six events this is.
    public var event: KeyboardEvent
    /// The keyboard's state as of this event: who it is, where it is (or is going), docking,
    /// ownership, output, layout and how its geometry was obtained.
    public var state: KeyboardState
    /// The name of the backend that observed it (`x11`, `wayland`, `replay`, ...).
    public var backend: String
    /// Where the keyboard was when the transition began. For a show with no earlier frame, the end
    /// frame moved just past the docked edge of its output (the bottom edge when it floats).
    /// ``/KeyboardValues/Rect/zero`` when the geometry is unknown (see ``hasKnownFrame``).
    public var beginFrame: Rect
    /// Where the keyboard is (did events) or is going (will events). A docked keyboard sliding in
    /// through its edge is going flush to that edge: its `willShow` carries that destination,
    /// marked by ``isEndFramePredicted``. A hide ends just past the docked edge (bottom when
    /// floating), on both its `willHide` and its `didHide`. Otherwise a `will` event carries the
    /// frame seen so far. ``/KeyboardValues/Rect/zero`` when the geometry is unknown (see ``hasKnownFrame``).
    public var endFrame: Rect
    /// True when ``endFrame`` is a destination computed ahead of the keyboard getting there
    /// (a docked slide-in, any hide); false when it was observed.
    public var isEndFramePredicted: Bool
    /// The transition's duration in seconds: on a `did` event measured from its first to its last
    /// frame change (0 when instantaneous); on a `will` event predicted from the keyboard's last
    /// transition of the same kind, or 0 when nothing predicts it. See ``timing``.
    public var animationDuration: Double
    /// The curve, measured or predicted like the duration; `.none` when instantaneous, `.unknown`
    /// when nothing predicts it or the frames seen fit no curve.
    public var animationCurve: AnimationCurve
    /// Where ``animationDuration`` and ``animationCurve`` come from.
    public var timing: TimingSource
    /// Whether the keyboard is visible once this transition completes: true for show and frame
    /// change events, false for hide events.
    public var isVisible: Bool
    /// Wall-clock time at which the event was produced.
    public var timestamp: Date

    /// Creates an update. Backends never call this: they hand observations to the tracker.
    public init(
        event: KeyboardEvent, state: KeyboardState, backend: String, beginFrame: Rect, endFrame: Rect,
        isEndFramePredicted: Bool = false, animationDuration: Double = 0, animationCurve: AnimationCurve = .none,
        timing: TimingSource? = nil, isVisible: Bool, timestamp: Date = Date()
    ) {
        self.event = event
        self.state = state
        self.backend = backend
        self.beginFrame = beginFrame
        self.endFrame = endFrame
        self.isEndFramePredicted = isEndFramePredicted
        self.animationDuration = animationDuration
        self.animationCurve = animationCurve
        self.timing = timing ?? (event.isWill ? .unknown : .measured)
        self.isVisible = isVisible
        self.timestamp = timestamp
    }

    /// Creates an update from the state's fields one by one.
    public init(
        event: KeyboardEvent, keyboard: KeyboardIdentity, backend: String, beginFrame: Rect, endFrame: Rect,
        isEndFramePredicted: Bool = false, animationDuration: Double = 0, animationCurve: AnimationCurve = .none,
        timing: TimingSource? = nil, isVisible: Bool,
        isDocked: Bool, dockedEdge: Edge? = nil, isLocal: Bool? = nil, output: Output? = nil,
        layout: InputLayout? = nil, geometry: GeometrySource, windowFrame: Rect? = nil, timestamp: Date = Date()
    ) {
        self.init(
            event: event,
            state: KeyboardState(
                keyboard: keyboard, frame: endFrame, isDocked: isDocked, dockedEdge: dockedEdge, isLocal: isLocal,
                output: output, layout: layout, geometry: geometry, windowFrame: windowFrame),
            backend: backend, beginFrame: beginFrame, endFrame: endFrame, isEndFramePredicted: isEndFramePredicted,
            animationDuration: animationDuration, animationCurve: animationCurve, timing: timing, isVisible: isVisible,
            timestamp: timestamp)
    }

    /// The keyboard this update is about.
    public var keyboard: KeyboardIdentity {
        get { state.keyboard }
        set { state.keyboard = newValue }
    }
    /// Whether the keyboard is docked to an edge of its output (reserves or spans that edge).
    public var isDocked: Bool {
        get { state.isDocked }
        set { state.isDocked = newValue }
    }
    /// The docked edge, when docked.
    public var dockedEdge: Edge? {
        get { state.dockedEdge }
        set { state.dockedEdge = newValue }
    }
    /// Whether the keyboard came up for this app; nil when the backend cannot tell.
    public var isLocal: Bool? {
        get { state.isLocal }
        set { state.isLocal = newValue }
    }
    /// What had the focus when the keyboard showed, when the backend can tell.
    public var focus: FocusedTopLevel? {
        get { state.focus }
        set { state.focus = newValue }
    }
    /// The output the keyboard is on, when known.
    public var output: Output? {
        get { state.output }
        set { state.output = newValue }
    }
    /// The active input layout, when known.
    public var layout: InputLayout? {
        get { state.layout }
        set { state.layout = newValue }
    }
    /// How the frames were obtained.
    public var geometry: GeometrySource {
        get { state.geometry }
        set { state.geometry = newValue }
    }
    /// The keyboard's own window inside ``endFrame``, when the backend saw that it differs from
    /// the frame: on X11, where a window manager frames the keyboard, the frames are the area the
    /// keyboard covers (the title bar and borders included, what an app must keep clear of) and
    /// this is the keyboard's window without them. nil when the keyboard's window is the whole
    /// frame, or when nothing tells (no backend but X11 tells; never with unknown geometry).
    public var windowFrame: Rect? {
        get { state.windowFrame }
        set { state.windowFrame = newValue }
    }
    /// False when nothing tells where the keyboard is (``/KeyboardValues/GeometrySource/unknown``): the frames are
    /// then ``/KeyboardValues/Rect/zero`` and mean nothing; the event, the output and ``isVisible`` still hold.
    public var hasKnownFrame: Bool { state.geometry != .unknown }

    /// Typist's name for `isLocal`: true only when the keyboard is known to belong to this app.
    public var belongsToCurrentApp: Bool { isLocal == true }
}

/// The state of one visible keyboard, as the manager knows it between events.
public struct KeyboardState: Sendable, Hashable {
    /// The keyboard, its output, layout and focus, shared by the state's copies (and by the
    /// tracker's entry and the observation they came from).
    package var facts: KeyboardFacts
    /// The keyboard.
    public var keyboard: KeyboardIdentity {
        get { facts.keyboard }
        set { facts.keyboard = newValue }
    }
    /// Its current frame (the last settled one, or the one it is moving to); ``/KeyboardValues/Rect/zero`` when
    /// the geometry is unknown (see ``hasKnownFrame``).
    public var frame: Rect
    /// Whether it is docked.
    public var isDocked: Bool
    /// The docked edge, when docked.
    public var dockedEdge: Edge?
    /// Whether it came up for this app; nil when unknown.
    public var isLocal: Bool?
    /// What had the focus when it showed, when the backend can tell (judge any app with
    /// ``/KeyboardValues/AppIdentity/isLocal(given:)``).
    public var focus: FocusedTopLevel? {
        get { facts.focus }
        set { facts.focus = newValue }
    }
    /// Its output, when known.
    public var output: Output? {
        get { facts.output }
        set { facts.output = newValue }
    }
    /// The active input layout, when known.
    public var layout: InputLayout? {
        get { facts.layout }
        set { facts.layout = newValue }
    }
    /// How the frame was obtained.
    public var geometry: GeometrySource
    /// The keyboard's own window inside ``frame``, when the backend saw that it differs from the
    /// frame (on X11, the keyboard's window without the title bar and borders its window manager
    /// frames it with); nil when the window is the whole frame or nothing tells.
    public var windowFrame: Rect?

    /// Creates a state value.
    public init(
        keyboard: KeyboardIdentity, frame: Rect, isDocked: Bool, dockedEdge: Edge? = nil, isLocal: Bool? = nil,
        output: Output? = nil, layout: InputLayout? = nil, geometry: GeometrySource, focus: FocusedTopLevel? = nil,
        windowFrame: Rect? = nil
    ) {
        facts = KeyboardFacts(keyboard: keyboard, output: output, layout: layout, focus: focus)
        self.frame = frame
        self.isDocked = isDocked
        self.dockedEdge = dockedEdge
        self.isLocal = isLocal
        self.geometry = geometry
        self.windowFrame = windowFrame
    }

    /// A state of the keyboard and so on that `facts` hold, sharing their storage.
    package init(
        facts: KeyboardFacts, frame: Rect, isDocked: Bool, dockedEdge: Edge?, isLocal: Bool?, geometry: GeometrySource,
        windowFrame: Rect? = nil
    ) {
        self.facts = facts
        self.frame = frame
        self.isDocked = isDocked
        self.dockedEdge = dockedEdge
        self.isLocal = isLocal
        self.geometry = geometry
        self.windowFrame = windowFrame
    }

    /// False when nothing tells where the keyboard is: ``frame`` is then ``/KeyboardValues/Rect/zero``.
    public var hasKnownFrame: Bool { geometry != .unknown }
}
