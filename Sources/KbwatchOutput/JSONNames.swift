import KeyboardAdapterCore
import KeyboardJSON

// The names of the enumerations a line carries, as static text: written with one copy, where a
// raw value is a String made and read on every line. Each equals the case's raw value (a test
// checks every case), which stays the API's spelling.

extension KeyboardEvent {
    /// The raw value, as static text.
    var jsonName: StaticString {
        switch self {
        case .willShow: "willShow"
        case .didShow: "didShow"
        case .willHide: "willHide"
        case .didHide: "didHide"
        case .willChangeFrame: "willChangeFrame"
        case .didChangeFrame: "didChangeFrame"
        }
    }
}

extension AnimationCurve {
    /// The raw value, as static text.
    var jsonName: StaticString {
        switch self {
        case .none: "none"
        case .linear: "linear"
        case .easeIn: "easeIn"
        case .easeOut: "easeOut"
        case .easeInOut: "easeInOut"
        case .unknown: "unknown"
        }
    }
}

extension GeometrySource {
    /// The raw value, as static text.
    var jsonName: StaticString {
        switch self {
        case .reported: "reported"
        case .derived: "derived"
        case .derivedUpperBound: "derivedUpperBound"
        case .unknown: "unknown"
        }
    }
}

extension TimingSource {
    /// The raw value, as static text.
    var jsonName: StaticString {
        switch self {
        case .measured: "measured"
        case .predicted: "predicted"
        case .unknown: "unknown"
        }
    }
}

extension JSONText {
    /// Appends `name` in quotes: a name that needs no escaping.
    mutating func plain(_ name: StaticString) {
        raw(byte: UInt8(ascii: "\""))
        raw(name)
        raw(byte: UInt8(ascii: "\""))
    }
}

extension JSONWriter {
    /// Whether every case's static name equals its raw value (for the tests).
    package static var namesMatchRawValues: Bool {
        func same(_ name: StaticString, _ raw: String) -> Bool { name.description == raw }
        return KeyboardEvent.allCases.allSatisfy { same($0.jsonName, $0.rawValue) }
            && AnimationCurve.allCases.allSatisfy { same($0.jsonName, $0.rawValue) }
            && GeometrySource.allCases.allSatisfy { same($0.jsonName, $0.rawValue) }
            && TimingSource.allCases.allSatisfy { same($0.jsonName, $0.rawValue) }
    }
}
