import KeyboardBackendInterface
import KeyboardJSON

/// One message of sway's IPC (`man 7 sway-ipc`): its type and payload.
struct SwayMessage: Sendable, Hashable {
    /// The reply's or event's type (events have the high bit set).
    var type: UInt32
    /// The JSON payload's bytes.
    var payload: [UInt8]

    /// `SUBSCRIBE`, and its reply.
    static let subscribe: UInt32 = 2
    /// `GET_TREE`, and its reply.
    static let getTree: UInt32 = 4
    /// The `window` event.
    static let windowEvent: UInt32 = 0x8000_0003

    /// The bytes of a request: `i3-ipc`, the payload's length and the type in native byte order,
    /// the payload.
    static func request(_ type: UInt32, _ payload: String) -> [UInt8] {
        var bytes = SwayMessageReader.magic
        withUnsafeBytes(of: UInt32(payload.utf8.count)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        return bytes + Array(payload.utf8)
    }
}

/// Cuts sway's IPC byte stream into messages. The length in each header is checked before any of
/// the payload is kept: a payload longer than `maximumPayload` is read past and dropped (counted
/// in `skipped`), so no message makes the reader hold more than that. Pure.
struct SwayMessageReader {
    /// Every message starts with these bytes.
    static let magic = Array("i3-ipc".utf8)
    /// Magic, length and type.
    static let headerSize = 14

    /// Why the stream cannot be read on: it is not sway's IPC (or lost its place).
    struct Failure: Error, Sendable, Hashable {}

    /// The longest payload kept.
    let maximumPayload: Int
    private var header: [UInt8] = []
    private var payload: [UInt8] = []
    private var current: (type: UInt32, length: Int)?
    /// Bytes of a payload too long to keep still to read past.
    private var skipping = 0
    /// Messages dropped for their length.
    private(set) var skipped = 0

    /// A reader that keeps payloads of at most `maximumPayload` bytes.
    init(maximumPayload: Int) { self.maximumPayload = maximumPayload }

    /// Reads `bytes` (any amount, as they came) and returns the messages they complete.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> [SwayMessage] {
        var messages: [SwayMessage] = []
        var index = 0
        while index < bytes.count {
            let left = bytes.count - index
            if skipping > 0 {
                let taken = min(skipping, left)
                skipping -= taken
                index += taken
            } else if let message = current {
                let taken = min(message.length - payload.count, left)
                payload += bytes[index..<(index + taken)]
                index += taken
                if payload.count == message.length { messages.append(finish()) }
            } else {
                let taken = min(Self.headerSize - header.count, left)
                header += bytes[index..<(index + taken)]
                index += taken
                guard header.count == Self.headerSize else { continue }
                guard header.prefix(Self.magic.count).elementsEqual(Self.magic) else { throw Failure() }
                let length = Int(Self.nativeWord(header, at: 6))
                let type = Self.nativeWord(header, at: 10)
                header.removeAll(keepingCapacity: true)
                if length > maximumPayload {
                    skipping = length
                    skipped += 1
                } else {
                    current = (type, length)
                    if length == 0 { messages.append(finish()) }
                }
            }
        }
        return messages
    }

    private mutating func finish() -> SwayMessage {
        defer {
            current = nil
            payload = []
        }
        return SwayMessage(type: current!.type, payload: payload)
    }

    private static func nativeWord(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        var word: UInt32 = 0
        withUnsafeMutableBytes(of: &word) { $0.copyBytes(from: bytes[offset..<(offset + 4)]) }
        return word
    }
}

/// What sway's IPC says has the focus, kept up to date from the `window` events and the tree asked
/// for at start. Messages that do not parse are counted and ignored. Pure.
struct SwayFocusState {
    /// The focused view, nil when none is known (or the focus is on no view).
    private(set) var focus: SwayFocus?
    private var focusedID: Int?
    /// Whether sway accepted the subscription (nil: no answer yet).
    private(set) var subscribed: Bool?
    /// Whether the tree asked for at start was read (false until its reply, and when it was too
    /// long to keep: the focus is then known from the next focus change).
    private(set) var treeRead = false
    /// Messages whose payload did not parse as expected.
    private(set) var unreadable = 0

    /// The parser for payloads: the reader has already bounded their length; sway nests a
    /// container in a workspace in an output in the root, two levels (object and list) each.
    private static let parser = JSONParser(maximumDepth: 128, maximumLength: SwayIPC.maximumPayload)

    /// Takes in one message.
    mutating func handle(_ message: SwayMessage) {
        do throws(JSONParser.Failure) {
            switch message.type {
            case SwayMessage.subscribe:
                subscribed = try JSONFields(Self.parser.parse(message.payload)).bool("success")
            case SwayMessage.getTree:
                let tree = try JSONFields(Self.parser.parse(message.payload))
                if let focused = try Self.focusedNode(in: tree) {
                    (focus, focusedID) = try Self.view(focused)
                } else {
                    (focus, focusedID) = (nil, nil)
                }
                treeRead = true
            case SwayMessage.windowEvent:
                // Most window events (new, title, move, ...) say nothing about the focus: they are
                // passed over unparsed when their first member names the change.
                if let change = Self.leadingChange(message.payload), !Self.focusChanges.contains(change) { return }
                try windowChanged(JSONFields(Self.parser.parse(message.payload)))
            default:
                return
            }
        } catch {
            unreadable += 1
        }
    }

    private mutating func windowChanged(_ event: JSONFields) throws(JSONParser.Failure) {
        let container = try event.object("container")
        switch try event.string("change") {
        case "focus":
            (focus, focusedID) = try Self.view(container)
        case "close":
            // The next focus comes with its own event; until then nothing is focused.
            if try container.optionalInt("id") == focusedID { (focus, focusedID) = (nil, nil) }
        default:
            return
        }
    }

    /// The window changes that move the focus.
    private static let focusChanges: Set<String> = ["focus", "close"]

    /// The change a window event names when its object begins with `"change": "<word>"` (sway
    /// writes it first), read from at most the first 64 bytes; nil for any other shape, which is
    /// then parsed in full. A payload that is not valid JSON, or names its change twice, is
    /// ignored either way, so passing over one by its first member decides nothing differently.
    static func leadingChange(_ payload: [UInt8]) -> String? {
        var index = 0
        let end = min(payload.count, 64)
        func skipSpace() { while index < end, [0x20, 0x0A, 0x0D, 0x09].contains(payload[index]) { index += 1 } }
        func expect(_ text: String) -> Bool {
            for byte in text.utf8 {
                guard index < end, payload[index] == byte else { return false }
                index += 1
            }
            return true
        }
        skipSpace()
        guard expect("{") else { return nil }
        skipSpace()
        guard expect("\"change\"") else { return nil }
        skipSpace()
        guard expect(":") else { return nil }
        skipSpace()
        guard expect("\"") else { return nil }
        let start = index
        while index < end, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(payload[index]) || payload[index] == 0x5F {
            index += 1
        }
        guard index > start, expect("\"") else { return nil }
        return String(decoding: payload[start..<(index - 1)], as: UTF8.self)
    }

    /// The focused node's fields, depth first through tiled and floating children.
    private static func focusedNode(in node: JSONFields) throws(JSONParser.Failure) -> JSONFields? {
        if try node.optionalBool("focused") == true { return node }
        for key in ["nodes", "floating_nodes"] where node.contains(key) {
            for (index, child) in try node.array(key).enumerated() {
                if let found = try focusedNode(in: JSONFields(child, path: node.name("\(key)[\(index)]"))) {
                    return found
                }
            }
        }
        return nil
    }

    /// A view's app id and pid, and its container id; a node without a pid (a workspace, an
    /// output) is no view.
    private static func view(_ node: JSONFields) throws(JSONParser.Failure) -> (SwayFocus?, Int?) {
        let id = try node.optionalInt("id")
        guard let pid = try node.optionalInt("pid", in: 1...Int(Int32.max)) else { return (nil, id) }
        let appID = try node.optionalString("app_id").flatMap {
            $0.utf8.count <= AppIdentity.maximumAppIDBytes ? $0 : nil
        }
        return (SwayFocus(appID: appID, pid: Int32(pid)), id)
    }
}
