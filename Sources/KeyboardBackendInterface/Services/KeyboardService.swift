/// A keyboard's own service: a plugin beside the geometry backends, one per keyboard family
/// (onboard, squeekboard). Geometry says where a keyboard is; its service says whether it is up,
/// whose it is, and takes show and hide requests. A backend that is given services starts them on
/// its run loop and joins what they say with what it sees.
///
/// A service never starts its keyboard by talking to it (no D-Bus activation), uses no CPU while
/// nothing happens, and turns every failure (no bus, no keyboard, a bus that dies, a peer that
/// sends nonsense) into a ``/KeyboardValues/KeyboardServiceState`` with a reason: the backend then falls back to
/// geometry alone.
public protocol KeyboardService: AnyObject, Sendable {
    /// The service's name for people and `kbwatch --doctor`, such as `onboard`.
    var name: String { get }
    /// The name geometry gives the keyboards this service speaks for (an X11 rule's name, such
    /// as `onboard`), which joins the two. It may follow the program that serves the service
    /// (phosh-osk-stub or Stevia serving squeekboard's); any thread.
    var keyboardName: String { get }
    /// Where the service lives, for people: `org.onboard.Onboard on the session bus`.
    var address: String { get }
    /// The output edge the keyboard always docks at (squeekboard: the bottom), nil when it floats
    /// or the user chooses. Lets a backend that sees only reserved space attribute a strip.
    var dockedEdge: Edge? { get }
    /// What the service said last; any thread.
    var state: KeyboardServiceState { get }
    /// On the loop's thread: connects, asks the keyboard's state before returning (so the backend
    /// can join it with what it sees at start), and adds its sources to the loop. Every later change
    /// is passed to `onChange` on the loop's thread. Never throws: a failure is a state.
    @_spi(BackendRun) func start(in context: LoopContext, onChange: @escaping (KeyboardServiceState) -> Void)
    /// On the loop's thread (or once it has ended): removes its sources and disconnects; requests
    /// still waiting for a reply fail. Idempotent.
    @_spi(BackendRun) func stop()
    /// Asks the keyboard to show (`true`) or hide (`false`). `completion` is called once, on the
    /// loop's thread: success when the keyboard's service replied (what happens next is observed
    /// like anything else), a ``/KeyboardValues/KeyboardControlError`` otherwise. Any thread.
    func requestVisible(_ visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void)
    /// What the service says right now, asked on a short connection of its own (for
    /// `kbwatch --doctor` and before a backend starts); never starts the keyboard. Blocks for a
    /// few milliseconds, at most about a second when the bus does not answer.
    func probe() -> KeyboardServiceState
    /// Lines for `kbwatch --doctor` about the keyboard's own settings that decide whether it can be
    /// shown (KWin's `mode`), asked now like ``probe()``; empty by default.
    func diagnosis() -> [String]
    /// Asks the display server to leave the windows of `processIDs` where they are when the
    /// keyboard opens (GNOME Shell otherwise slides the focused window up out of its keyboard's
    /// way), replacing the processes given before; an empty list ends the request. Kept while the
    /// service runs, and given again to a display server or companion that restarts. Returns
    /// false when the service cannot (the default: no other display server moves windows). Any
    /// thread.
    func leaveWindowsInPlace(processIDs: [Int32]) -> Bool
}

extension KeyboardService {
    /// Nothing to add by default.
    public func diagnosis() -> [String] { [] }

    /// Not by default: only GNOME Shell moves windows for its keyboard.
    public func leaveWindowsInPlace(processIDs: [Int32]) -> Bool { false }

    /// No fixed edge by default.
    public var dockedEdge: Edge? { nil }
}

extension KeyboardServiceReport {
    /// What `service` says now.
    public init(_ service: any KeyboardService) {
        self.init(name: service.name, address: service.address, state: service.state, keyboard: service.keyboardName)
    }
}
