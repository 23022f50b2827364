import KbwatchOutput
import KeyboardAdapterCore
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The session service's values as D-Bus types (interface version 2): an update, a progress
/// frame, a visible keyboard and the state are `a{sv}` dictionaries, frames `(iiii)` structs.
/// A key is missing where the value is unknown (JSON's null): `local` not judged, no output, no
/// known frame. Interfaces/org.keyboardadapter.Watcher2.xml documents every key.
enum WatcherValues {
    // MARK: - Writing

    /// An event, `local` as the update says; `show` numbers the show it belongs to (broadcast
    /// `Event`s carry it, for subscribers to find their verdict).
    static func update(_ update: KeyboardUpdate, show: UInt32? = nil) -> BusValue {
        var entries = header(update.event.rawValue, update.timestamp, update.backend)
        if let show { entries.append(("show", .uint32(show))) }
        entries += state(update.state, frame: "end_frame")
        if update.hasKnownFrame { entries.append(("begin_frame", rect(update.beginFrame))) }
        entries += [
            ("visible", .bool(update.isVisible)), ("animation_duration", .double(update.animationDuration)),
            ("animation_curve", .string(update.animationCurve.rawValue)),
            ("end_frame_predicted", .bool(update.isEndFramePredicted)), ("timing", .string(update.timing.rawValue)),
        ]
        return .dictionary(entries)
    }

    /// A progress frame: `frame` where the keyboard is now, `begin_frame` and `end_frame` where
    /// the transition began and goes, `elapsed` seconds, `fraction` when the destination is known.
    static func progress(_ progress: KeyboardProgress, show: UInt32? = nil) -> BusValue {
        var entries = header(progress.transition.rawValue, progress.timestamp, progress.backend)
        entries[0].0 = "transition"
        if let show { entries.append(("show", .uint32(show))) }
        entries += state(progress.state, frame: "frame")
        if progress.state.hasKnownFrame {
            entries += [("begin_frame", rect(progress.beginFrame)), ("end_frame", rect(progress.endFrame))]
        }
        entries += [
            ("end_frame_predicted", .bool(progress.isEndFramePredicted)), ("elapsed", .double(progress.elapsed)),
        ]
        if let fraction = progress.fraction { entries.append(("fraction", .double(fraction))) }
        return .dictionary(entries)
    }

    /// A subscriber's verdict from show `show` on (`Verdict(u, a{sv})`): `local` when it is known,
    /// and `window` when given (where the display server shows the subscriber's own window).
    static func verdict(show: UInt32, local: Bool?, window: Rect? = nil) -> [BusValue] {
        var entries = local.map { [("local", BusValue.bool($0))] } ?? []
        if let window { entries.append(("window", rect(window))) }
        return [.uint32(show), .dictionary(entries)]
    }

    /// The visible keyboards, `aa{sv}`.
    static func keyboards(_ states: [KeyboardState]) -> BusValue {
        .array("a{sv}", states.map { .dictionary(state($0, frame: "frame")) })
    }

    /// `GetState`'s answer: `visible`, `keyboards`, `services`, `reserved`.
    static func state(_ states: [KeyboardState], services: [KeyboardServiceReport], reserved: [ReservedStrip])
        -> BusValue
    {
        .dictionary([
            ("visible", .bool(!states.isEmpty)), ("keyboards", keyboards(states)),
            ("services", .array("a{sv}", services.map(service))),
            ("reserved", .array("a{sv}", reserved.map(strip))),
        ])
    }

    /// `event` (or `transition`), `time` in microseconds since 1970, `backend`.
    private static func header(_ event: String, _ time: Date, _ backend: String) -> [(String, BusValue)] {
        [
            ("event", .string(event)), ("time", .int64(Int64((time.timeIntervalSince1970 * 1_000_000).rounded()))),
            ("backend", .string(backend)),
        ]
    }

    /// A keyboard's state, its frame under the key `frame` when it is known.
    private static func state(_ state: KeyboardState, frame: String) -> [(String, BusValue)] {
        var entries: [(String, BusValue)] = [("keyboard", identity(state.keyboard))]
        if let output = state.output { entries.append(("output", self.output(output))) }
        if state.hasKnownFrame { entries.append((frame, rect(state.frame))) }
        entries.append(("docked", .bool(state.isDocked)))
        if let edge = state.dockedEdge { entries.append(("docked_edge", .string(edge.rawValue))) }
        if let local = state.isLocal { entries.append(("local", .bool(local))) }
        if let layout = state.layout { entries.append(("layout", self.layout(layout))) }
        entries.append(("geometry", .string(state.geometry.rawValue)))
        if state.hasKnownFrame, let window = state.windowFrame { entries.append(("window_frame", rect(window))) }
        return entries
    }

    private static func service(_ report: KeyboardServiceReport) -> BusValue {
        var entries: [(String, BusValue)] = [("name", .string(report.name)), ("address", .string(report.address))]
        if let keyboard = report.keyboard { entries.append(("keyboard", .string(keyboard))) }
        let (status, problem) = report.state.reportedStatus
        entries.append(("status", .string(status)))
        if let visible = report.state.isVisible { entries.append(("visible", .bool(visible))) }
        if let pid = report.state.pid { entries.append(("pid", .uint32(UInt32(bitPattern: pid)))) }
        if let problem { entries.append(("problem", .string(problem))) }
        return .dictionary(entries)
    }

    private static func strip(_ strip: ReservedStrip) -> BusValue {
        .dictionary([
            ("output", output(strip.output)), ("edge", .string(strip.edge.rawValue)), ("frame", rect(strip.frame)),
        ])
    }

    private static func identity(_ keyboard: KeyboardIdentity) -> BusValue {
        var entries: [(String, BusValue)] = [
            ("id", .string(keyboard.id)), ("name", .string(keyboard.name)), ("kind", .string(keyboard.kind.rawValue)),
        ]
        if let pid = keyboard.pid { entries.append(("pid", .uint32(UInt32(bitPattern: pid)))) }
        return .dictionary(entries)
    }

    private static func output(_ output: Output) -> BusValue {
        .dictionary([("name", .string(output.name)), ("frame", rect(output.frame))])
    }

    private static func layout(_ layout: InputLayout) -> BusValue {
        var entries: [(String, BusValue)] = [("name", .string(layout.name))]
        if let code = layout.code { entries.append(("code", .string(code))) }
        return .dictionary(entries)
    }

    private static func rect(_ rect: Rect) -> BusValue {
        .structure([
            .int32(Int32(clamping: rect.x)), .int32(Int32(clamping: rect.y)), .int32(Int32(clamping: rect.width)),
            .int32(Int32(clamping: rect.height)),
        ])
    }
}
