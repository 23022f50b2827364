import Foundation
import FuzzedKbwatchOutput
import KeyboardAdapterCore
import KeyboardJSON
import KeyboardReplay
import X11Adapter

/// Runs one input through the code kbwatch runs, in this process, and checks what comes out:
/// every JSON line parses (with the core's own parser) into an object whose numbers are numbers,
/// and no human, `--format` or error text holds a raw control character or line separator.
struct Pipeline {
    /// What one input produced.
    struct Outcome {
        var lines = 0
        var rejected = false
        var invalid: [String] = []
    }

    static let formatTemplate = FormatWriter.fields.map { "%\($0.0)" }.joined(separator: " ")
    private let human = HumanWriter()
    private let json = JSONWriter()
    private let format = FormatWriter(template: Pipeline.formatTemplate)
    private let checker = JSONParser(maximumDepth: 8, maximumLength: 1 << 24)

    /// A recording, read as `kbwatch --replay` reads it: lines split at newlines, decoded
    /// lossily, each line decoded and fed to a tracker, which is settled at the end.
    func recording(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome()
        var tracker = KeyboardTracker(backendName: "replay", settleInterval: 0.05)
        var previous: Double?
        var emissions: [TrackerEmission] = []
        var number = 0
        for raw in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if raw.count > ObservationCodec.maximumLineLength {
                outcome.rejected = true
                break
            }
            let text = String(decoding: raw, as: UTF8.self)
            if text.allSatisfy(\.isWhitespace) { continue }
            do {
                let observation = try ObservationCodec.decode(text[...], lineNumber: number, previousTime: previous)
                previous = observation.time
                emissions += tracker.ingest(observation)
            } catch {
                outcome.rejected = true
                check(text: error.description, what: "error message", into: &outcome)
                if !error.description.hasPrefix("line \(number): ") {
                    outcome.invalid.append("error without its line number: \(error.description)")
                }
                break
            }
        }
        emissions += tracker.advance(to: .infinity)
        for emission in emissions {
            switch emission {
            case .update(let update):
                check(json: json.line(for: update), into: &outcome)
                check(text: human.line(for: update), what: "human line", into: &outcome)
                check(text: format.line(for: update), what: "--format line", into: &outcome)
            case .layoutChanged(let state):
                if let line = human.line(forLayoutChange: state, at: Date()) {
                    check(text: line, what: "layout line", into: &outcome)
                }
            case .progress(let progress):
                check(json: json.line(forProgress: progress), into: &outcome)
                check(text: human.line(forProgress: progress), what: "progress line", into: &outcome)
                check(text: format.line(forProgress: progress), what: "--format progress line", into: &outcome)
            }
        }
        let visible = tracker.visibleKeyboards
        json.lines(forState: visible).forEach { check(json: $0, into: &outcome) }
        human.lines(forState: visible).forEach { check(text: $0, what: "--state line", into: &outcome) }
        return outcome
    }

    /// A rules file, parsed as the X11 backend parses it, then tried on a window.
    func rulesFile(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome()
        do {
            let rules = try KeyboardRules.parse(Data(bytes))
            _ = KeyboardRules.builtIn.adding(rules).match(X11WindowDescription(windowClass: "Florence"))
        } catch {
            outcome.rejected = true
            check(text: error.reason, what: "rules error", into: &outcome)
        }
        return outcome
    }

    private func check(json line: String, into outcome: inout Outcome) {
        outcome.lines += 1
        check(text: line, what: "JSON line", into: &outcome)
        guard case .object(let members)? = try? checker.parse(line[...]) else {
            outcome.invalid.append("not a JSON object: \(line.prefix(300))")
            return
        }
        // The schema's numbers are numbers: a null here once came from a huge time.
        for (key, value) in members where key == "animationDuration" {
            switch value {
            case .int, .number: break
            default: outcome.invalid.append("animationDuration is not a number: \(line.prefix(300))")
            }
        }
    }

    private func check(text: String, what: String, into outcome: inout Outcome) {
        outcome.lines += 1
        if let bad = text.unicodeScalars.first(where: Self.isRaw) {
            outcome.invalid.append(
                "\(what) holds U+\(String(bad.value, radix: 16)): \(text.debugDescription.prefix(300))")
        }
    }

    /// Control characters, DEL, C1, line and paragraph separators, bidirectional controls.
    static func isRaw(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
