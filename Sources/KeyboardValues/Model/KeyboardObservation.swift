/// What a backend saw of one keyboard at one moment: the only thing backends hand to the core.
/// Backends never build events; the tracker turns observations into them.
public struct KeyboardObservation: Sendable, Hashable {
    /// Monotonic time of the observation in seconds. Only differences matter; live backends use
    /// `MonotonicClock.now()`, recordings store times relative to their first line.
    public var time: Double
    /// The keyboard, its output, layout and focus, shared by the observation's copies.
    package var facts: KeyboardFacts
    /// The keyboard.
    public var keyboard: KeyboardIdentity {
        get { facts.keyboard }
        set { facts.keyboard = newValue }
    }
    /// Its frame in global logical pixels; nil when it is not shown (unmapped, gone, closed) or
    /// when it is shown but nothing tells where (``isShown`` true, geometry `.unknown`). A frame
    /// wholly outside its output counts as not shown, but is kept as the start of a slide.
    public var frame: Rect?
    /// Whether the keyboard is up: always true with a frame; with no frame, true only when a
    /// backend knows the keyboard is visible but not where (KWin's virtual keyboard, for
    /// instance). Setting it matters only while `frame` is nil.
    public var isShown: Bool {
        get { frame != nil || isShownWithoutFrame }
        // Kept only while there is no frame, so that two equal observations compare equal.
        set { isShownWithoutFrame = newValue && frame == nil }
    }
    /// Up at an unknown place, when there is no frame.
    private var isShownWithoutFrame: Bool
    /// The backend's docking verdict: true or false when it knows (a DOCK window type, struts,
    /// a reserved zone), nil to let the tracker judge from the frame and the output.
    public var isDocked: Bool?
    /// The docked edge when the backend knows it.
    public var dockedEdge: Edge?
    /// The output the keyboard is on, when known.
    public var output: Output? {
        get { facts.output }
        set { facts.output = newValue }
    }
    /// How the frame was obtained.
    public var geometry: GeometrySource
    /// Whether the keyboard is shown for this app, when the backend can tell.
    public var isLocal: Bool?
    /// What had the focus when the keyboard showed, when the backend can tell: lets any app be
    /// judged, not only the one given to the backend.
    public var focus: FocusedTopLevel? {
        get { facts.focus }
        set { facts.focus = newValue }
    }
    /// The active input layout, when known.
    public var layout: InputLayout? {
        get { facts.layout }
        set { facts.layout = newValue }
    }
    /// Where the keyboard is going, when the display server names it before it gets there
    /// (GNOME Shell eases its keyboard to a target it knows when the slide starts); nil when
    /// nothing says. While the frame differs from it the keyboard is in motion: a show starts
    /// while it is still off screen, a hide while it is still in place, both ending at this frame,
    /// and the transition settles only once it has arrived (or after
    /// ``KeyboardObservation/longestNamedStep`` without a step).
    public var destination: Rect?
    /// The keyboard's own window, when the backend saw it and it differs from ``frame``: on X11,
    /// where a window manager frames the keyboard, `frame` is the area the keyboard covers (the
    /// window manager's title bar and borders included) and this is the keyboard's window inside
    /// it. nil when the keyboard's window is the whole frame, when it is not shown, or when nothing
    /// tells.
    public var windowFrame: Rect?

    /// The longest a slide towards a named ``destination`` may go without a step before it counts
    /// as settled where it stopped, in seconds.
    public static let longestNamedStep = 1.0

    /// Creates an observation. `isShown` defaults to whether a frame is given; pass true with a
    /// nil frame and geometry `.unknown` for a keyboard known to be up at an unknown place.
    public init(
        time: Double, keyboard: KeyboardIdentity, frame: Rect?, isDocked: Bool? = nil, dockedEdge: Edge? = nil,
        output: Output? = nil, geometry: GeometrySource = .reported, isLocal: Bool? = nil, layout: InputLayout? = nil,
        isShown: Bool? = nil, focus: FocusedTopLevel? = nil, destination: Rect? = nil, windowFrame: Rect? = nil
    ) {
        self.init(
            time: time, facts: KeyboardFacts(keyboard: keyboard, output: output, layout: layout, focus: focus),
            frame: frame, isDocked: isDocked, dockedEdge: dockedEdge, geometry: geometry, isLocal: isLocal,
            destination: destination, windowFrame: windowFrame)
        isShownWithoutFrame = frame == nil && isShown == true
    }

    /// An observation of the keyboard and so on that `facts` hold, sharing their storage.
    package init(
        time: Double, facts: KeyboardFacts, frame: Rect?, isDocked: Bool? = nil, dockedEdge: Edge? = nil,
        geometry: GeometrySource = .reported, isLocal: Bool? = nil, destination: Rect? = nil, windowFrame: Rect? = nil
    ) {
        self.time = time
        self.facts = facts
        self.frame = frame
        isShownWithoutFrame = false
        self.isDocked = isDocked
        self.dockedEdge = dockedEdge
        self.geometry = geometry
        self.isLocal = isLocal
        self.destination = destination
        self.windowFrame = windowFrame
    }
}
