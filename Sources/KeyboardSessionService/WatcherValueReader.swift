import KeyboardAdapterCore
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads back what ``WatcherValues`` writes: the service's updates, progress frames and state as
/// the values they came from. Strict: a missing key that must be there, a value of another type,
/// a name outside its choices or a frame out of range refuses the whole value with the reason.
enum WatcherValueReader {
    /// Why a value was refused.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    /// Frames beyond this are no screen's.
    private static let coordinates: ClosedRange<Int64> = -(1 << 24)...(1 << 24)

    static func update(_ value: ReceivedBusValue) throws(Refusal) -> KeyboardUpdate {
        let state = try keyboardState(value, frame: "end_frame")
        return KeyboardUpdate(
            event: try choice(value, "event"), state: state, backend: try string(value, "backend"),
            beginFrame: state.hasKnownFrame ? try rect(value, "begin_frame") : .zero, endFrame: state.frame,
            isEndFramePredicted: try bool(value, "end_frame_predicted"),
            animationDuration: try duration(value, "animation_duration"),
            animationCurve: try choice(value, "animation_curve"), timing: try choice(value, "timing"),
            isVisible: try bool(value, "visible"), timestamp: try time(value))
    }

    static func progress(_ value: ReceivedBusValue) throws(Refusal) -> KeyboardProgress {
        let state = try keyboardState(value, frame: "frame")
        let fraction = try optional(value, "fraction") { entry throws(Refusal) in
            guard case .double(let number) = entry, (0...1).contains(number) else {
                throw Refusal(description: "fraction is not a number from 0 to 1")
            }
            return number
        }
        return KeyboardProgress(
            transition: try choice(value, "transition"), state: state,
            beginFrame: state.hasKnownFrame ? try rect(value, "begin_frame") : .zero,
            endFrame: state.hasKnownFrame ? try rect(value, "end_frame") : .zero,
            isEndFramePredicted: try bool(value, "end_frame_predicted"), fraction: fraction,
            elapsed: try duration(value, "elapsed"), backend: try string(value, "backend"), timestamp: try time(value))
    }

    /// The number of the show an `Event` or `Progress` belongs to.
    static func show(_ value: ReceivedBusValue) throws(Refusal) -> UInt32 {
        guard case .integer(let number) = try entry(value, "show"), let show = UInt32(exactly: number) else {
            throw Refusal(description: "show is not a show's number")
        }
        return show
    }

    /// A `Verdict`'s `local`, nil when unknown.
    static func verdict(_ value: ReceivedBusValue) throws(Refusal) -> Bool? {
        guard case .dictionary = value else { throw Refusal(description: "the verdict is not a dictionary") }
        return try optional(value, "local") { entry throws(Refusal) in try flag(entry, "local") }
    }

    /// `GetState`'s answer.
    static func state(_ value: ReceivedBusValue) throws(Refusal) -> SessionServiceClient.State {
        SessionServiceClient.State(
            keyboards: try list(value, "keyboards").map { item throws(Refusal) in
                try keyboardState(item, frame: "frame")
            },
            services: try list(value, "services").map(service),
            reserved: try list(value, "reserved").map(strip))
    }

    /// A keyboard's state, its frame under the key `frame`.
    static func keyboardState(_ value: ReceivedBusValue, frame: String) throws(Refusal) -> KeyboardState {
        let geometry: GeometrySource = try choice(value, "geometry")
        return KeyboardState(
            keyboard: try identity(entry(value, "keyboard")),
            frame: geometry == .unknown ? .zero : try rect(value, frame), isDocked: try bool(value, "docked"),
            dockedEdge: try optional(value, "docked_edge") { entry throws(Refusal) in try named(entry, "docked_edge") },
            isLocal: try optional(value, "local") { entry throws(Refusal) in try flag(entry, "local") },
            output: try optional(value, "output", output), layout: try optional(value, "layout", layout),
            geometry: geometry,
            windowFrame: geometry == .unknown || value["window_frame"] == nil ? nil : try rect(value, "window_frame"))
    }

    private static func identity(_ value: ReceivedBusValue) throws(Refusal) -> KeyboardIdentity {
        KeyboardIdentity(
            id: try string(value, "id"), name: try string(value, "name"), kind: try choice(value, "kind"),
            pid: try optional(value, "pid") { entry throws(Refusal) in try pid(entry) })
    }

    private static func output(_ value: ReceivedBusValue) throws(Refusal) -> Output {
        Output(name: try string(value, "name"), frame: try rect(value, "frame"))
    }

    private static func layout(_ value: ReceivedBusValue) throws(Refusal) -> InputLayout {
        InputLayout(
            name: try string(value, "name"),
            code: try optional(value, "code") { entry throws(Refusal) in try text(entry, "code") })
    }

    private static func service(_ value: ReceivedBusValue) throws(Refusal) -> KeyboardServiceReport {
        let problem = try optional(value, "problem") { entry throws(Refusal) in try text(entry, "problem") }
        let status: KeyboardServiceState.Status
        switch try string(value, "status") {
        case "unknown": status = .unknown
        case "noBus": status = .busUnavailable(problem ?? "")
        case "notRunning": status = .notRunning
        case "running": status = .running
        case let other: throw Refusal(description: "status \(other) is none of the statuses")
        }
        return KeyboardServiceReport(
            name: try string(value, "name"), address: try string(value, "address"),
            state: KeyboardServiceState(
                status: status,
                isVisible: try optional(value, "visible") { entry throws(Refusal) in try flag(entry, "visible") },
                pid: try optional(value, "pid") { entry throws(Refusal) in try pid(entry) },
                problem: status == .busUnavailable(problem ?? "") ? nil : problem),
            keyboard: try optional(value, "keyboard") { entry throws(Refusal) in try text(entry, "keyboard") })
    }

    private static func strip(_ value: ReceivedBusValue) throws(Refusal) -> ReservedStrip {
        ReservedStrip(
            output: try output(entry(value, "output")), edge: try choice(value, "edge"), frame: try rect(value, "frame")
        )
    }

    // MARK: - Entries

    private static func entry(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> ReceivedBusValue {
        guard let entry = value[key] else { throw Refusal(description: "\(key) is missing") }
        return entry
    }

    private static func optional<Value>(
        _ value: ReceivedBusValue, _ key: String, _ read: (ReceivedBusValue) throws(Refusal) -> Value
    ) throws(Refusal) -> Value? {
        guard let entry = value[key] else { return nil }
        return try read(entry)
    }

    private static func list(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> [ReceivedBusValue] {
        guard case .array(let items) = try entry(value, key) else { throw Refusal(description: "\(key) is not a list") }
        return items
    }

    private static func string(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> String {
        try text(entry(value, key), key)
    }

    private static func text(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> String {
        guard case .string(let text) = value else { throw Refusal(description: "\(key) is not a string") }
        return text
    }

    private static func bool(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> Bool {
        try flag(entry(value, key), key)
    }

    private static func flag(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> Bool {
        guard case .bool(let flag) = value else { throw Refusal(description: "\(key) is not a boolean") }
        return flag
    }

    private static func choice<Choice: RawRepresentable>(_ value: ReceivedBusValue, _ key: String) throws(Refusal)
        -> Choice where Choice.RawValue == String
    {
        try named(entry(value, key), key)
    }

    private static func named<Choice: RawRepresentable>(_ value: ReceivedBusValue, _ key: String) throws(Refusal)
        -> Choice where Choice.RawValue == String
    {
        let name = try text(value, key)
        guard let made = Choice(rawValue: name) else {
            throw Refusal(description: "\(key) \(name) is none of its names")
        }
        return made
    }

    private static func duration(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> Double {
        guard case .double(let seconds) = try entry(value, key), (0...3600).contains(seconds) else {
            throw Refusal(description: "\(key) is not a duration in seconds")
        }
        return seconds
    }

    private static func time(_ value: ReceivedBusValue) throws(Refusal) -> Date {
        guard case .integer(let microseconds) = try entry(value, "time"), microseconds >= 0 else {
            throw Refusal(description: "time is not microseconds since 1970")
        }
        return Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    private static func pid(_ value: ReceivedBusValue) throws(Refusal) -> Int32 {
        guard case .integer(let number) = value, (1...Int64(Int32.max)).contains(number) else {
            throw Refusal(description: "pid is not a process id")
        }
        return Int32(number)
    }

    private static func rect(_ value: ReceivedBusValue, _ key: String) throws(Refusal) -> Rect {
        guard case .structure(let members) = try entry(value, key), members.count == 4 else {
            throw Refusal(description: "\(key) is not a frame (iiii)")
        }
        var numbers: [Int] = []
        for member in members {
            guard case .integer(let number) = member, coordinates.contains(number) else {
                throw Refusal(description: "\(key) is out of range")
            }
            numbers.append(Int(number))
        }
        guard numbers[2] >= 0, numbers[3] >= 0 else { throw Refusal(description: "\(key) has a negative size") }
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
