import KeyboardAdapterCore
import KeyboardJSON
import KeyboardReplay

/// Valid recordings and rules files to start from: what kbwatch and users really write.
enum Inputs {
    static let names = ["onboard", "matchbox-keyboard", "xvkbd", "docked keyboard", "fcitx5", "evil\u{1B}[2J\u{2028}"]
    static let outputs = [
        Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800)),
        Output(name: "HEADLESS-2", frame: Rect(x: 1280, y: 0, width: 1920, height: 1080)),
    ]

    /// A recording of a few keyboards showing, moving, sliding and hiding, encoded as kbwatch does.
    static func recording(_ random: inout SeededRandom) -> [UInt8] {
        let count = Int.random(in: 1...24, using: &random)
        var time = 0.0
        var lines: [String] = []
        for _ in 0..<count {
            time += random.pick([0, 0.001, 0.02, 0.05, 0.3, 2])
            let keyboard = KeyboardIdentity(
                id: "x11:0x\(Int.random(in: 1...4, using: &random))", name: random.pick(names),
                kind: random.chance(0.2) ? .inputMethodPanel : .keyboard,
                pid: random.chance(0.5) ? Int32.random(in: 1...99999, using: &random) : nil)
            let output = random.chance(0.8) ? random.pick(outputs) : nil
            let frame: Rect? =
                random.chance(0.25)
                ? nil
                : Rect(
                    x: Int.random(in: -300...1500, using: &random), y: Int.random(in: -300...1200, using: &random),
                    width: Int.random(in: 0...1920, using: &random), height: Int.random(in: 0...400, using: &random))
            let observation = KeyboardObservation(
                time: time, keyboard: keyboard, frame: frame,
                isDocked: random.chance(0.5) ? random.chance(0.5) : nil,
                dockedEdge: random.chance(0.5) ? random.pick(Edge.allCases) : nil, output: output,
                geometry: random.pick(GeometrySource.allCases),
                isLocal: random.chance(0.5) ? random.chance(0.5) : nil,
                layout: random.chance(0.5)
                    ? InputLayout(name: "English (US)", code: random.chance(0.5) ? "us" : nil) : nil)
            lines.append(ObservationCodec.encode(observation, relativeTo: 0))
        }
        return Array((lines.joined(separator: "\n") + (random.chance(0.8) ? "\n" : "")).utf8)
    }

    /// A rules file with a few rules using every field.
    static func rulesFile(_ random: inout SeededRandom) -> [UInt8] {
        let rules = (0..<Int.random(in: 0...4, using: &random)).map { index -> JSONValue in
            var members: [(String, JSONValue)] = [("name", .string("rule\(index)"))]
            if random.chance(0.3) { members.append(("kind", .string(random.pick(["keyboard", "inputMethodPanel"])))) }
            if random.chance(0.6) { members.append(("class", .string(random.pick(["Florence", "XVkbd"])))) }
            if random.chance(0.3) { members.append(("instance", .string("my-ime"))) }
            if random.chance(0.3) { members.append(("title", .string("Keyboard"))) }
            if random.chance(0.3) { members.append(("windowType", .string("DOCK"))) }
            if random.chance(0.3) { members.append(("overrideRedirect", .bool(random.chance(0.5)))) }
            if random.chance(0.2) { members.append(("hasClass", .bool(random.chance(0.5)))) }
            if random.chance(0.2) { members.append(("acceptsInput", .bool(random.chance(0.5)))) }
            if random.chance(0.2) { members.append(("onscreenKeyboard", .int(1))) }
            return .object(members)
        }
        return Array(JSONValue.object([("rules", .array(rules))]).rendered.utf8)
    }
}
