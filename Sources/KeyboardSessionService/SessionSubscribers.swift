import KeyboardAdapterCore
import SystemdBus

/// What a client asks for when it subscribes (`Subscribe(a{sv})`), read with bounds: at most
/// ``maximumIDs`` ids of each kind, app ids of at most 256 bytes. Unknown keys are ignored, so
/// that newer clients can talk to this service; a known key of the wrong type is refused.
struct SubscribeOptions: Sendable, Hashable {
    /// The most ids of one kind a subscription may name.
    static let maximumIDs = 64

    var progress = false
    /// Whether the caller's own process counts as the app's (kbwatch, which has no windows,
    /// says false).
    var caller = true
    var processIDs: [Int32] = []
    var windowIDs: [UInt64] = []
    var appIDs: [String] = []

    /// A refusal, with the reason for the caller.
    struct Refusal: Error {
        var reason: String
    }

    /// Reads the options from `message` (whose signature is `a{sv}`).
    static func read(_ message: BusMessage) throws(Refusal) -> SubscribeOptions {
        var options = SubscribeOptions()
        do {
            guard try message.enter("a", "{sv}") else { return options }
            var entries = 0
            while try message.enter("e", "sv") {
                entries += 1
                guard entries <= 16 else { throw Refusal(reason: "more than 16 options") }
                let key = try message.readString(limit: 64)
                guard let (type, contents) = message.peek(), type == "v", let signature = contents else {
                    throw Refusal(reason: "option \(key) is not a variant")
                }
                try read(key, signature, from: message, into: &options)
                try message.exit()
            }
            try message.exit()
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal(reason: "malformed options: \(error)")
        }
        return options
    }

    private static func read(
        _ key: String, _ signature: String, from message: BusMessage, into options: inout SubscribeOptions
    ) throws {
        let expected = ["progress": "b", "caller": "b", "pids": "au", "window_ids": "at", "app_ids": "as"]
        guard let wanted = expected[key] else {
            try message.skip("v")
            return
        }
        guard signature == wanted else {
            throw Refusal(reason: "option \(key) must be '\(wanted)', not '\(signature)'")
        }
        _ = try message.enter("v", signature)
        switch key {
        case "progress":
            options.progress = try message.readBool()
        case "caller":
            options.caller = try message.readBool()
        default:
            _ = try message.enter("a", String(signature.dropFirst()))
            var count = 0
            while message.peek() != nil {
                count += 1
                guard count <= maximumIDs else { throw Refusal(reason: "option \(key) names more than \(maximumIDs)") }
                switch key {
                case "pids":
                    let pid = try message.readUInt32()
                    if pid > 0, pid <= UInt32(Int32.max) { options.processIDs.append(Int32(pid)) }
                case "window_ids": options.windowIDs.append(try message.readUInt64())
                default:
                    let id = try message.readString(limit: AppIdentity.maximumAppIDBytes + 1)
                    guard id.utf8.count <= AppIdentity.maximumAppIDBytes else {
                        throw Refusal(reason: "an app id is longer than \(AppIdentity.maximumAppIDBytes) bytes")
                    }
                    options.appIDs.append(id)
                }
            }
            try message.exit()
        }
        try message.exit()
    }
}

/// How a subscriber's `local` is judged.
enum LocalJudgement: Sendable {
    /// Outside a sandbox: against its process and the ids it named that count for it.
    case host(AppIdentity)
    /// In a sandbox: a focused window is its own when the window's process runs in a sandbox
    /// of its app id; what windows say of themselves (app ids, `WM_CLASS`) does not count.
    case sandbox(appID: String)
    /// A caller whose sandbox is not known for certain: no window is its own.
    case nothing

    /// `local` for a focus: nil when the focus says too little to tell.
    func isLocal(given focus: FocusedTopLevel?, sandboxes: inout FocusSandboxes) -> Bool? {
        switch self {
        case .host(let identity): return identity.isLocal(given: focus)
        case .sandbox(let appID):
            guard let focus, focus.knows.contains(.processes) else { return nil }
            return sandboxes.appIDs(of: focus).contains(appID)
        case .nothing: return false
        }
    }
}

/// The sandboxes of the last focus's processes, read once however many subscribers ask and
/// however many events (every move of a keyboard) carry that focus: a focus is taken when a
/// keyboard shows.
struct FocusSandboxes {
    private var last: (focus: FocusedTopLevel, appIDs: [String])?

    /// Nothing read yet.
    init() {}

    mutating func appIDs(of focus: FocusedTopLevel) -> [String] {
        if let last, last.focus == focus { return last.appIDs }
        let found = focus.processIDs.prefix(8).compactMap { pid -> String? in
            if case .flatpak(let appID) = Sandbox.identity(ofProcess: pid) { return appID }
            return nil
        }
        last = (focus, found)
        return found
    }
}

/// How many places each client's share holds (see ``SessionCaller/share``).
struct ShareCounts {
    private var counts: [String: Int] = [:]

    subscript(share: String) -> Int { counts[share, default: 0] }

    mutating func add(_ share: String) { counts[share, default: 0] += 1 }

    mutating func remove(_ share: String) {
        guard let count = counts[share] else { return }
        counts[share] = count > 1 ? count - 1 : nil
    }

    mutating func removeAll() { counts.removeAll() }
}

/// The clients subscribed now, by unique bus name, each with who it is and how its `local` is
/// judged. Bounded by ``SessionServiceConfiguration/maximumSubscribers``, and for each client
/// (a sandboxed app, or a process outside any sandbox) by
/// ``SessionServiceConfiguration/maximumSubscribersPerClient``.
struct SessionSubscribers {
    struct Subscriber {
        var options: SubscribeOptions {
            didSet { judgement = Self.judgement(options, caller) }
        }
        /// Who the client is, as the bus and the kernel say.
        let caller: SessionCaller
        /// How its `local` is judged, kept as the options change: used at every show, for
        /// every subscriber.
        private(set) var judgement: LocalJudgement
        /// The verdict it was last sent (see ``ShowNumbers``).
        var lastVerdict = SentVerdict.none

        init(options: SubscribeOptions, caller: SessionCaller) {
            self.options = options
            self.caller = caller
            judgement = Self.judgement(options, caller)
        }

        private static func judgement(_ options: SubscribeOptions, _ caller: SessionCaller) -> LocalJudgement {
            switch caller.sandbox {
            case .flatpak(let appID): return .sandbox(appID: appID)
            case .other, .unknown: return .nothing
            case .none: break
            }
            let own = caller.own(options)
            return .host(
                AppIdentity(
                    processIDs: (options.caller ? [caller.pid] : []) + own.processIDs, windowIDs: own.windowIDs,
                    appIDs: own.appIDs))
        }
    }

    private(set) var byName: [String: Subscriber] = [:]
    /// The names in order, kept as subscribers come and go rather than sorted on every event.
    private(set) var names: [String] = []
    /// How many subscribers each client's share holds.
    private(set) var perShare = ShareCounts()
    /// How many subscribers asked for progress frames.
    private var progressCount = 0

    var count: Int { byName.count }
    var isEmpty: Bool { byName.isEmpty }

    subscript(name: String) -> Subscriber? { byName[name] }

    /// Adds a subscriber, in place of one of the same name if there is one.
    mutating func add(_ name: String, _ subscriber: Subscriber) {
        if let old = byName.updateValue(subscriber, forKey: name) {
            perShare.remove(old.caller.share)
            progressCount -= old.options.progress ? 1 : 0
        } else {
            names.insert(name, at: names.firstIndex { $0 > name } ?? names.endIndex)
        }
        perShare.add(subscriber.caller.share)
        progressCount += subscriber.options.progress ? 1 : 0
    }

    /// Replaces a subscriber's options; its verdicts are to be sent again.
    mutating func update(_ name: String, options: SubscribeOptions) {
        guard let old = byName[name] else { return }
        progressCount += (options.progress ? 1 : 0) - (old.options.progress ? 1 : 0)
        byName[name]?.options = options
        byName[name]?.lastVerdict = .none
    }

    /// Records the verdict a subscriber was sent.
    mutating func setVerdict(_ name: String, _ verdict: SentVerdict) { byName[name]?.lastVerdict = verdict }

    /// Whether any subscriber asked for progress frames (asked on every frame: counted, not searched).
    var wantProgress: Bool { progressCount > 0 }

    @discardableResult
    mutating func remove(_ name: String) -> Subscriber? {
        guard let removed = byName.removeValue(forKey: name) else { return nil }
        names.removeAll { $0 == name }
        perShare.remove(removed.caller.share)
        progressCount -= removed.options.progress ? 1 : 0
        return removed
    }
}
