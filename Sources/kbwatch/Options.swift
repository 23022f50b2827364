import KeyboardAdapter

/// What the command line asked for.
struct Options: Equatable {
    /// How events are printed.
    enum Style: Equatable {
        case human
        case json
        case format(String)
    }

    /// What to do.
    enum Mode: Equatable {
        case watch
        case state
        case listBackends
        case doctor
        case show
        case hide
        case help
        case version
        /// Serve the session (`--serve`).
        case serve
        /// Install and enable the GNOME Shell extension (`--install-gnome-extension`).
        case installGnomeExtension
        /// Disable and remove it (`--uninstall-gnome-extension`).
        case uninstallGnomeExtension
    }

    var mode: Mode = .watch
    var style: Style = .human
    var backend: String?
    var processIDs: [Int32] = []
    var windowIDs: [UInt64] = []
    var appIDs: [String] = []
    var recordPath: String?
    var replayPath: String?
    /// Playback speed factor; nil plays as fast as possible.
    var speed: Double? = 1
    var settleMilliseconds: Double = 50
    /// Also print the intermediate frames of transitions.
    var progress = false
    /// Read the lines from the session service instead of watching (`--from-service`).
    var fromService = false
    /// `--serve`: seconds without a subscriber before the service ends; nil with `--stay`.
    var idleExit: Double? = 30
    /// `--serve`: the most clients subscribed at once.
    var maximumSubscribers = 256
    /// `--serve`: the most subscriptions of one client (a sandboxed app, or one process).
    var maximumSubscribersPerClient = 32
    /// `--install-gnome-extension`: the GNOME Shell version to install for, instead of the one
    /// that runs or is installed here.
    var gnomeShellVersion: String?
}

/// A command-line mistake, said in one line.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Options {
    /// The options that each choose what kbwatch does; two of them together are refused.
    static let modeFlags: [String: Mode] = [
        "-h": .help, "--help": .help, "--version": .version, "--list-backends": .listBackends, "--doctor": .doctor,
        "--state": .state, "--show": .show, "--hide": .hide, "--serve": .serve,
        "--install-gnome-extension": .installGnomeExtension, "--uninstall-gnome-extension": .uninstallGnomeExtension,
    ]

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var rest = arguments[...]
        var speedGiven = false
        var modes: [String] = []
        /// The output options given, to refuse two that disagree.
        var styles: [String] = []
        /// `--stay` and `--idle-exit`, which only `--serve` takes.
        var serviceTimes: [String] = []
        var serviceLimits: [String] = []

        func value(_ flag: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard let next = rest.popFirst(), !next.hasPrefix("--") || next == "-" else {
                throw UsageError("\(flag) needs a value")
            }
            return next
        }
        /// A count for `flag` from 1 to 4096.
        func count(_ flag: String, inline: String?) throws(UsageError) -> Int {
            let text = try value(flag, inline: inline)
            guard let count = Int(text), (1...4096).contains(count) else {
                throw UsageError("\(flag) needs a number from 1 to 4096, not '\(text)'")
            }
            return count
        }

        while let argument = rest.popFirst() {
            // Accept both `--flag value` and `--flag=value`.
            let parts = Self.splitAtEquals(argument)
            let flag = argument.hasPrefix("--") ? parts[0] : argument
            let inline = argument.hasPrefix("--") && parts.count == 2 ? parts[1] : nil
            if let mode = Self.modeFlags[flag] {
                modes.append(flag)
                options.mode = mode
                continue
            }
            switch flag {
            case "--json":
                styles.append(flag)
                options.style = .json
            case "--format":
                styles.append(flag)
                options.style = .format(try value(flag, inline: inline))
            case "--backend":
                let name = try value(flag, inline: inline)
                guard !name.isEmpty else { throw UsageError("--backend needs a name") }
                options.backend = name
            case "--gnome-shell-version":
                let text = try value(flag, inline: inline)
                guard let major = Int(text.prefix { $0.isNumber }), major > 0, text.utf8.count <= 16,
                    text.allSatisfy({ $0.isNumber || $0 == "." })
                else { throw UsageError("--gnome-shell-version needs a version such as 48 or 43.9, not '\(text)'") }
                options.gnomeShellVersion = text
            case "--pid":
                let text = try value(flag, inline: inline)
                guard let pid = Int32(text), pid > 0 else {
                    throw UsageError("--pid needs a process id, not '\(text)'")
                }
                options.processIDs.append(pid)
            case "--window":
                let text = try value(flag, inline: inline)
                guard let id = parseWindowID(text) else {
                    throw UsageError("--window needs a window id (decimal or 0x hex), not '\(text)'")
                }
                options.windowIDs.append(id)
            case "--app-id":
                let text = try value(flag, inline: inline)
                guard !text.isEmpty, text.utf8.count <= AppIdentity.maximumAppIDBytes else {
                    throw UsageError(
                        "--app-id needs an app id of 1 to \(AppIdentity.maximumAppIDBytes) bytes"
                            + (text.isEmpty ? "" : ", not one of \(text.utf8.count)"))
                }
                options.appIDs.append(text)
            case "--record": options.recordPath = try value(flag, inline: inline)
            case "--replay": options.replayPath = try value(flag, inline: inline)
            case "--speed":
                let text = try value(flag, inline: inline)
                speedGiven = true
                if text == "max" {
                    options.speed = nil
                } else {
                    guard let speed = Double(text), Self.speeds.contains(speed) else {
                        throw UsageError(
                            "--speed needs a factor from \(Self.speeds.lowerBound) to \(Int(Self.speeds.upperBound)) "
                                + "or 'max', not '\(text)'")
                    }
                    options.speed = speed
                }
            case "--progress": options.progress = true
            case "--from-service": options.fromService = true
            case "--stay":
                serviceTimes.append(flag)
                options.idleExit = nil
            case "--max-subscribers":
                serviceLimits.append(flag)
                options.maximumSubscribers = try count(flag, inline: inline)
            case "--max-subscribers-per-client":
                serviceLimits.append(flag)
                options.maximumSubscribersPerClient = try count(flag, inline: inline)
            case "--idle-exit":
                serviceTimes.append(flag)
                let text = try value(flag, inline: inline)
                guard let seconds = Double(text), seconds >= 0.1, seconds <= 86_400 else {
                    throw UsageError("--idle-exit needs seconds from 0.1 to 86400, not '\(text)'")
                }
                options.idleExit = seconds
            case "--settle":
                let text = try value(flag, inline: inline)
                guard let ms = Double(text), ms >= 0, ms <= 10_000 else {
                    throw UsageError("--settle needs milliseconds from 0 to 10000, not '\(text)'")
                }
                options.settleMilliseconds = ms
            default:
                throw UsageError(
                    argument.hasPrefix("-") ? "unknown option '\(argument)'" : "unexpected argument '\(argument)'")
            }
        }
        if modes.count > 1 { throw UsageError("\(modes[0]) and \(modes[1]) cannot be used together") }
        if styles.count > 1 {
            throw UsageError(
                styles[0] == styles[1]
                    ? "\(styles[0]) can be given once" : "\(styles[0]) and \(styles[1]) cannot be used together")
        }
        if speedGiven && options.replayPath == nil { throw UsageError("--speed only applies to --replay") }
        if options.gnomeShellVersion != nil && options.mode != .installGnomeExtension {
            throw UsageError("--gnome-shell-version only applies to --install-gnome-extension")
        }
        if let flag = serviceTimes.first, options.mode != .serve { throw UsageError("\(flag) only applies to --serve") }
        if serviceTimes.count > 1 { throw UsageError("--stay and --idle-exit cannot be used together") }
        if let flag = serviceLimits.first, options.mode != .serve {
            throw UsageError("\(flag) only applies to --serve")
        }
        if options.fromService {
            let conflicting: [(Bool, String)] = [
                (options.mode == .serve, "--serve"), (options.replayPath != nil, "--replay"),
                (options.recordPath != nil, "--record"), (options.backend != nil, "--backend"),
                (options.mode == .doctor, "--doctor"), (options.mode == .listBackends, "--list-backends"),
                (options.mode == .installGnomeExtension, "--install-gnome-extension"),
                (options.mode == .uninstallGnomeExtension, "--uninstall-gnome-extension"),
            ]
            if let (_, flag) = conflicting.first(where: \.0) {
                throw UsageError("--from-service and \(flag) cannot be used together")
            }
        }
        if options.mode == .serve, let flag = styles.first ?? (options.progress ? "--progress" : nil) {
            throw UsageError("--serve prints nothing per event: \(flag) does not apply")
        }
        if options.replayPath != nil && (options.mode == .show || options.mode == .hide) {
            throw UsageError(
                "--\(options.mode == .show ? "show" : "hide") asks a live keyboard; it cannot be used with --replay")
        }
        if options.replayPath != nil && options.backend != nil {
            throw UsageError("--replay and --backend cannot be used together")
        }
        return options
    }

    /// `argument` split at its first `=` as `argument.split(separator: "=", maxSplits: 1)` splits
    /// it; an argument without `=` (most) is not looked at character by character, which spares
    /// start-up that code.
    static func splitAtEquals(_ argument: String) -> [String] {
        guard argument.utf8.contains(UInt8(ascii: "=")) else { return argument.isEmpty ? [] : [argument] }
        return argument.split(separator: "=", maxSplits: 1).map(String.init)
    }

    /// The replay speed factors accepted: slower than a hundredth would leave a recording playing
    /// for days, faster than ten thousand is what `max` is for.
    static let speeds: ClosedRange<Double> = 0.01...10_000

    /// A window id in decimal or `0x` hexadecimal.
    static func parseWindowID(_ text: String) -> UInt64? {
        let lower = text.lowercased()
        let id = lower.hasPrefix("0x") ? UInt64(lower.dropFirst(2), radix: 16) : UInt64(lower)
        return id.flatMap { $0 > 0 ? $0 : nil }
    }
}
