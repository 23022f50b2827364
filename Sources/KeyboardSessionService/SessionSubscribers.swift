import KeyboardAdapterCore
import KeyboardServices

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

/// The clients subscribed now, by unique bus name, each with the identity its `local` is judged
/// against: its own process (as the bus tells it) and the ids it named. Bounded by
/// ``SessionServiceConfiguration/maximumSubscribers``.
struct SessionSubscribers {
    struct Subscriber {
        var options: SubscribeOptions {
            didSet { identity = Self.identity(options, pid) }
        }
        /// The client's process, as the bus says; nil until it has said.
        var pid: Int32? {
            didSet { identity = Self.identity(options, pid) }
        }
        /// Follows the client's name, which going away forgets it.
        var ownerWatch: BusSlot?
        /// What its `local` is judged against, kept as the options and the pid change: judged
        /// on every event, for every subscriber.
        private(set) var identity: AppIdentity

        init(options: SubscribeOptions, ownerWatch: BusSlot?) {
            self.options = options
            self.ownerWatch = ownerWatch
            identity = Self.identity(options, nil)
        }

        private static func identity(_ options: SubscribeOptions, _ pid: Int32?) -> AppIdentity {
            AppIdentity(
                processIDs: (options.caller ? pid.map { [$0] } ?? [] : []) + options.processIDs,
                windowIDs: options.windowIDs,
                appIDs: options.appIDs)
        }
    }

    private(set) var byName: [String: Subscriber] = [:]
    /// The names in order, kept as subscribers come and go rather than sorted on every event.
    private(set) var names: [String] = []

    var count: Int { byName.count }
    var isEmpty: Bool { byName.isEmpty }

    subscript(name: String) -> Subscriber? {
        get { byName[name] }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if byName.updateValue(newValue, forKey: name) == nil {
                names.insert(name, at: names.firstIndex { $0 > name } ?? names.endIndex)
            }
        }
    }

    @discardableResult
    mutating func remove(_ name: String) -> Subscriber? {
        guard let removed = byName.removeValue(forKey: name) else { return nil }
        names.removeAll { $0 == name }
        return removed
    }
}
