import KeyboardBackendInterface
import KeyboardJSON
import SystemdBus

/// One report of the package's KWin script (Companions/kwin/keyboard-adapter.js), read from its
/// JSON text with bounds: frames within ±2^20 pixels, names and ids of at most 256 bytes, at most
/// four app ids. Anything else is refused.
enum CompanionMessage: Sendable, Hashable {
    /// The script runs; `api` is KWin's major version as far as its scripting shows.
    case hello(api: Int)
    /// The input method's window `id` is up, or moved, at this place.
    case panel(id: String, CompanionReport.Panel)
    /// That window is gone.
    case panelGone(id: String)
    /// The focus moved to this window (nil: to none).
    case focus(CompanionReport.Focus?)

    private static let parser = JSONParser(maximumDepth: 4, maximumLength: KWinCompanion.maximumReportBytes)
    private static let coordinates = -(1 << 20)...(1 << 20)

    init(_ text: String) throws(JSONParser.Failure) {
        let fields = try JSONFields(Self.parser.parse(text[...]))
        switch try fields.string("kind") {
        case "hello":
            self = .hello(api: try fields.int("api", in: 0...1000))
        case "panel":
            let frame = try fields.array("frame").compactMap { value -> Int? in
                guard case .int(let number) = value, Self.coordinates.contains(number) else { return nil }
                return number
            }
            guard frame.count == 4, frame[2] > 0, frame[3] > 0 else {
                throw JSONParser.Failure(reason: "field 'frame' is not x, y, width, height")
            }
            var output = try fields.optionalString("output")
            if let name = output { output = try Self.bounded(name, "output") }
            self = .panel(
                id: try Self.bounded(fields.string("id"), "id"),
                CompanionReport.Panel(
                    frame: Rect(x: frame[0], y: frame[1], width: frame[2], height: frame[3]), outputName: output))
        case "panelGone":
            self = .panelGone(id: try Self.bounded(fields.string("id"), "id"))
        case "focus":
            let pid = try fields.optionalInt("pid", in: 1...Int(Int32.max)).map(Int32.init)
            let ids = try fields.array("appIDs").prefix(4).compactMap { value -> String? in
                guard case .string(let id) = value, !id.isEmpty,
                    id.utf8.count <= AppIdentity.maximumAppIDBytes
                else { return nil }
                return id
            }
            self = .focus(pid == nil && ids.isEmpty ? nil : CompanionReport.Focus(pid: pid, appIDs: ids))
        default:
            throw JSONParser.Failure(reason: "unknown kind")
        }
    }

    private static func bounded(_ text: String, _ field: String) throws(JSONParser.Failure) -> String {
        guard text.utf8.count <= 256 else { throw JSONParser.Failure(reason: "field '\(field)' is too long") }
        return text
    }
}
