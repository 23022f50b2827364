import Glibc
import KeyboardBackendInterface

/// sway's IPC socket (`SWAYSOCK`) as a run-loop source: subscribed to `window` events, it knows
/// the focused view's pid, which no Wayland protocol tells a client. Nothing waits for it: the
/// requests are written and the replies and events read as the socket allows, and a show is judged
/// by what has arrived by then.
///
/// It is used only when the socket belongs to the compositor the backend watches (the same peer
/// process on both sockets): a compositor nested in sway (phoc) inherits the outer `SWAYSOCK`,
/// whose pids are the outer session's. Every message is bounded (``maximumPayload``) before it is
/// kept. A flood of events can make sway drop the connection (it closes clients that fall 4 MB
/// behind, and would answer a tree of thousands of views that way too): it is then made again a
/// second later, without asking for the tree, and the focus is unknown until the next focus event.
/// Lives on the loop's thread.
final class SwayIPC: LoopSource {
    /// The longest message payload read; a longer one (a tree of thousands of views) is read past.
    static let maximumPayload = 1 << 20
    /// The most bytes read (and parsed) in one turn of the loop: a few events. Parsing is what
    /// costs, and a flood of events (a client making thousands of views with long titles) must
    /// never keep the loop from the compositor's connection, which the compositor closes when it
    /// cannot write to it.
    static let bytesPerTurn = 16 << 10

    /// How long after sway dropped the connection it is made again, in seconds.
    static let reconnectDelay = 1.0

    /// The socket's path.
    let path: String
    /// sway's pid.
    let swayPID: pid_t
    private var descriptor: Int32
    private let context: LoopContext
    private var outgoing: [UInt8]
    /// When the connection is made again, after sway dropped it.
    private var reconnectAt: Double?
    /// How often the connection was made again.
    private(set) var reconnections = 0
    private var reader = SwayMessageReader(maximumPayload: maximumPayload)
    private var chunk = [UInt8](repeating: 0, count: bytesPerTurn)
    /// The focus as sway last said.
    private(set) var state = SwayFocusState()
    /// Why the connection ended, once it has.
    private(set) var endReason: String?

    /// Subscribes to `window` events on `socket` (already connected, of sway `swayPID`), asks for
    /// the tree (the focus now), and adds itself to the loop.
    private init(path: String, socket: Int32, swayPID: pid_t, context: LoopContext) {
        self.path = path
        descriptor = socket
        self.swayPID = swayPID
        self.context = context
        outgoing = Self.subscription + SwayMessage.request(SwayMessage.getTree, "")
        context.add(self)
    }

    /// The subscription to `window` events.
    private static let subscription = SwayMessage.request(SwayMessage.subscribe, "[\"window\"]")

    /// Whether the connection is up.
    var isOpen: Bool { descriptor >= 0 }

    /// Connects to the IPC socket in `environment`'s `SWAYSOCK` when it belongs to the compositor
    /// whose process is `compositorPID`; otherwise says why not.
    static func open(environment: [String: String], compositorPID: pid_t?, context: LoopContext) -> Result<
        SwayIPC, IPCUnavailable
    > {
        switch connect(path: environment["SWAYSOCK"], compositorPID: compositorPID) {
        case .success(let (path, socket, pid)):
            return .success(SwayIPC(path: path, socket: socket, swayPID: pid, context: context))
        case .failure(let reason):
            return .failure(reason)
        }
    }

    /// Why sway's IPC is not used, for `--doctor`.
    struct IPCUnavailable: Error, Sendable, Hashable {
        /// In words.
        var reason: String
    }

    /// Connects to `path` (`SWAYSOCK`) without blocking and checks whose socket it is; the
    /// connected socket on success.
    static func connect(path: String?, compositorPID: pid_t?) -> Result<(String, Int32, pid_t), IPCUnavailable> {
        guard let path, !path.isEmpty else {
            return .failure(IPCUnavailable(reason: "SWAYSOCK is not set"))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            return .failure(IPCUnavailable(reason: "SWAYSOCK is longer than a socket path can be"))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let socket = Glibc.socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return .failure(IPCUnavailable(reason: "no socket: \(errnoText())")) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = "cannot connect to \(path): \(errnoText())"
            Glibc.close(socket)
            return .failure(IPCUnavailable(reason: reason))
        }
        guard let swayPID = peerPID(socket) else {
            Glibc.close(socket)
            return .failure(IPCUnavailable(reason: "cannot tell whose socket \(path) is"))
        }
        guard swayPID == compositorPID else {
            Glibc.close(socket)
            let compositor = compositorPID.map { "pid \($0)" } ?? "unknown"
            return .failure(
                IPCUnavailable(
                    reason:
                        "SWAYSOCK \(path) belongs to another compositor (pid \(swayPID); this display's is \(compositor))"
                ))
        }
        return .success((path, socket, swayPID))
    }

    /// The process at the other end of a connected Unix socket.
    static func peerPID(_ socket: Int32) -> pid_t? {
        // struct ucred is pid, uid, gid (three 32-bit fields); Glibc's module does not export it.
        var credentials = [Int32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<Int32>.size * 3)
        let status = credentials.withUnsafeMutableBytes {
            getsockopt(socket, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length)
        }
        guard status == 0, credentials[0] > 0 else { return nil }
        return credentials[0]
    }

    var deadline: Double? { reconnectAt }

    func deadlineReached() {
        reconnectAt = nil
        switch Self.connect(path: path, compositorPID: swayPID) {
        case .success(let (_, socket, _)):
            descriptor = socket
            outgoing = Self.subscription
            reader = SwayMessageReader(maximumPayload: Self.maximumPayload)
            reconnections += 1
        case .failure(let unavailable):
            endReason = unavailable.reason
            reconnectAt = context.clock.now() + Self.reconnectDelay
        }
    }

    func prepareToWait() -> (descriptor: Int32, events: Int16) {
        guard isOpen else { return (-1, 0) }
        return (descriptor, Int16(POLLIN) | (outgoing.isEmpty ? 0 : Int16(POLLOUT)))
    }

    func handle(events: Int16) {
        guard isOpen, events != 0 else { return }
        if events & Int16(POLLOUT) != 0, !outgoing.isEmpty { send() }
        if isOpen, events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { receive() }
    }

    private func send() {
        let written = outgoing.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written > 0 {
            outgoing.removeFirst(written)
        } else if written < 0, errno != EAGAIN, errno != EINTR {
            end("cannot write to \(path): \(Self.errnoText())")
        }
    }

    private func receive() {
        var total = 0
        while isOpen, total < Self.bytesPerTurn {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 {
                end("sway closed the IPC connection")
                return
            }
            if count < 0 {
                if errno != EAGAIN, errno != EINTR { end("cannot read from \(path): \(Self.errnoText())") }
                return
            }
            total += count
            let fed = chunk.withUnsafeBytes { bytes in
                Result { () throws(SwayMessageReader.Failure) in
                    try reader.feed(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                }
            }
            guard case .success(let messages) = fed else {
                end("\(path) sent something that is not sway's IPC")
                return
            }
            for message in messages { state.handle(message) }
        }
    }

    /// The connection broke: it is made again after ``reconnectDelay``.
    private func end(_ reason: String) {
        endReason = reason
        closeSocket()
        reconnectAt = context.clock.now() + Self.reconnectDelay
    }

    private func closeSocket() {
        guard isOpen else { return }
        Glibc.close(descriptor)
        descriptor = -1
        state = SwayFocusState()
        outgoing = []
    }

    /// Closes the socket and leaves the loop for good. Idempotent.
    func close() {
        closeSocket()
        reconnectAt = nil
        context.remove(self)
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
