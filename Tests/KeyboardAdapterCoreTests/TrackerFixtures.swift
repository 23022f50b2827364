import Foundation

@testable import KeyboardAdapterCore

/// Shared values and a tiny driver for tracker tests.
enum Fixture {
    static let screen = Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
    static let osk = KeyboardIdentity(id: "test:1", name: "osk")
    static let panel = KeyboardIdentity(id: "test:2", name: "panel", kind: .inputMethodPanel)
    static let docked = Rect(x: 0, y: 560, width: 1280, height: 240)
    static let floating = Rect(x: 100, y: 50, width: 700, height: 205)
    static let fixedDate = Date(timeIntervalSince1970: 1_800_000_000)

    static func tracker(settle: Double = 0.05) -> KeyboardTracker {
        KeyboardTracker(backendName: "test", settleInterval: settle, wallClock: { fixedDate })
    }

    static func observe(
        _ frame: Rect?, at time: Double, keyboard: KeyboardIdentity = osk, docked: Bool? = nil,
        edge: Edge? = nil, output: Output? = screen, local: Bool? = nil,
        layout: InputLayout? = nil
    ) -> KeyboardObservation {
        KeyboardObservation(
            time: time, keyboard: keyboard, frame: frame, isDocked: docked, dockedEdge: edge, output: output,
            geometry: .reported, isLocal: local, layout: layout)
    }
}

/// One emitted event, reduced to what sequence tests compare.
struct Step: Equatable, CustomStringConvertible {
    var event: KeyboardEvent
    var end: Rect
    var id: String = Fixture.osk.id

    var description: String { "\(event) \(end) \(id)" }
}

extension Array where Element == TrackerEmission {
    var updates: [KeyboardUpdate] {
        compactMap { if case .update(let update) = $0 { update } else { nil } }
    }
    var steps: [Step] { updates.map { Step(event: $0.event, end: $0.endFrame, id: $0.keyboard.id) } }
}

extension KeyboardTracker {
    /// Feeds observations in order, then advances to `until`; returns everything emitted.
    mutating func run(_ observations: [KeyboardObservation], until: Double? = nil) -> [TrackerEmission] {
        var out: [TrackerEmission] = []
        for observation in observations { out += ingest(observation) }
        if let until { out += advance(to: until) }
        return out
    }
}
