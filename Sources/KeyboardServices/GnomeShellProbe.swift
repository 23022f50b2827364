import KeyboardBackendInterface
import SystemdBus

/// What GNOME Shell and the package's extension inside it say now, asked with blocking calls
/// (for the start of a watch, a backend's availability and `kbwatch --doctor`).
package struct GnomeShellProbe: Sendable, Hashable {
    /// The extension's names on the bus and in the shell.
    package static let shellName = "org.gnome.Shell"
    /// Where the extension exports its object.
    package static let objectPath = "/org/keyboardadapter/GnomeShell"
    /// The extension's interface.
    package static let interface = "org.keyboardadapter.GnomeShell1"
    /// The extension's uuid: its folder's name in `~/.local/share/gnome-shell/extensions`.
    package static let uuid = "keyboard-adapter@keyboardadapter.org"
    /// The release whose extension this build speaks to; any other is refused.
    package static let release = "1.0.0"
    /// The interface revision this build reads.
    package static let revision: UInt32 = 4
    /// The GNOME Shell major versions the extension's metadata names (`shell-version`): the ones it
    /// is tested on. GNOME Shell refuses to run an extension whose metadata does not name its own
    /// major version (it calls it out of date), unless `disable-extension-version-validation` is set.
    package static let supportedMajors = 43...51

    /// Whether the shell runs and what its extension is doing.
    package enum Finding: Sendable, Hashable {
        /// No session bus, and why.
        case noBus(String)
        /// Nobody owns `org.gnome.Shell`: not a GNOME session.
        case noShell
        /// The shell runs, but the extension's object does not answer; `extensionState` is what
        /// the shell says of the extension (`not installed`, `disabled`, `error: ...`).
        case noExtension(extensionState: String)
        /// The extension answers, but it is another release or revision.
        case otherRelease(String)
        /// The extension answers and is this release.
        case ready
    }

    /// What was found.
    package var finding: Finding
    /// The shell's version (its `ShellVersion`), when it answered.
    package var shellVersion: String?
    /// The shell's pid, from the bus.
    package var shellPID: Int32?
    /// The unique name owning `org.gnome.Shell`.
    package var owner: String?
    /// Whether the shell's keyboard is enabled, as the extension says.
    package var keyboardEnabled: Bool?
    /// The keyboard's state, when the extension answered.
    package var state: GnomeShellMessages.KeyboardState?

    /// The command that installs the extension, for messages.
    package static let installCommand = "kbwatch --install-gnome-extension"

    /// Asks on a short connection of its own.
    package static func run(environment: [String: String], timeout: Double) -> GnomeShellProbe {
        do {
            return run(on: try BusConnection(environment: environment), timeout: timeout)
        } catch {
            return GnomeShellProbe(finding: .noBus(ServiceProbe.noBusReason(error)))
        }
    }

    /// Asks on `connection`.
    package static func run(on connection: BusConnection, timeout: Double) -> GnomeShellProbe {
        var probe = GnomeShellProbe(finding: .noShell)
        do {
            let reply = try connection.call(.busDriver("GetNameOwner", [.string(shellName)]), timeout: timeout)
            guard reply.error == nil, reply.hasSignature("s") else { return probe }
            probe.owner = try reply.readString()
        } catch {
            if !error.isNoOwner { probe.finding = .noBus(ServiceProbe.noBusReason(error)) }
            return probe
        }
        if let reply = try? connection.call(
            .busDriver("GetConnectionUnixProcessID", [.string(shellName)]), timeout: timeout),
            reply.error == nil, reply.hasSignature("u"), let pid = try? reply.readUInt32(), pid > 0,
            pid <= UInt32(Int32.max)
        {
            probe.shellPID = Int32(pid)
        }
        probe.shellVersion = stringProperty(
            "ShellVersion", of: "org.gnome.Shell", at: "/org/gnome/Shell", on: connection, timeout: timeout)
        guard
            let release = stringProperty("Release", of: interface, at: objectPath, on: connection, timeout: timeout)
        else {
            probe.finding = .noExtension(extensionState: extensionState(on: connection, timeout: timeout))
            return probe
        }
        let revision = uint32Property("Revision", on: connection, timeout: timeout)
        guard release == Self.release, revision == Self.revision else {
            probe.finding = .otherRelease(release)
            return probe
        }
        probe.keyboardEnabled = boolProperty("Enabled", on: connection, timeout: timeout)
        let call = BusCall(destination: shellName, path: objectPath, interface: interface, member: "GetState")
        if let reply = try? connection.call(call, timeout: timeout), reply.error == nil {
            probe.state = GnomeShellMessages.state(reply)
        }
        probe.finding = probe.state == nil ? .noExtension(extensionState: "its GetState cannot be read") : .ready
        return probe
    }

    /// The shell's word on the extension (`org.gnome.Shell.Extensions.GetExtensionInfo`).
    static func extensionState(on connection: BusConnection, timeout: Double) -> String {
        let call = BusCall(
            destination: shellName, path: "/org/gnome/Shell", interface: "org.gnome.Shell.Extensions",
            member: "GetExtensionInfo", arguments: [.string(uuid)])
        guard let reply = try? connection.call(call, timeout: timeout), reply.error == nil,
            reply.hasSignature("a{sv}")
        else { return "unknown (the shell does not say)" }
        var state: Double?
        var error = ""
        do {
            guard try reply.enter("a", "{sv}") else { return "not installed" }
            var entries = 0
            while entries < 64, try reply.enter("e", "sv") {
                entries += 1
                switch try reply.readString() {
                case "state" where reply.peek()?.contents == "d":
                    _ = try reply.enter("v", "d")
                    state = try reply.readDouble()
                    try reply.exit()
                case "error" where reply.peek()?.contents == "s":
                    _ = try reply.enter("v", "s")
                    error = try reply.readString(limit: 200)
                    try reply.exit()
                default:
                    try reply.skip("v")
                }
                try reply.exit()
            }
        } catch {
            return "unknown (the shell's answer cannot be read)"
        }
        guard let state else { return "not installed (or installed after GNOME Shell started: log in again)" }
        // The shell's ExtensionState values.
        switch Int(state) {
        case 1: return "enabled, but its object does not answer"
        case 2, 6: return "installed, not enabled"
        case 3: return "failed: " + (error.isEmpty ? "no reason given" : error)
        case 4: return outOfDate
        case 5: return "downloading"
        default: return "in state \(Int(state))"
        }
    }

    private static func property(
        _ name: String, of interface: String = interface, at path: String = objectPath, type: Character,
        on connection: BusConnection, timeout: Double
    ) -> BusMessage? {
        guard
            let reply = try? connection.call(
                .getProperty(destination: shellName, path: path, interface: interface, property: name),
                timeout: timeout), reply.error == nil, reply.hasSignature("v"),
            reply.peek()?.contents == String(type), (try? reply.enter("v", String(type))) == true
        else { return nil }
        return reply
    }

    private static func stringProperty(
        _ name: String, of interface: String, at path: String, on connection: BusConnection, timeout: Double
    ) -> String? {
        try? property(name, of: interface, at: path, type: "s", on: connection, timeout: timeout)?.readString(
            limit: 64)
    }

    private static func uint32Property(_ name: String, on connection: BusConnection, timeout: Double) -> UInt32? {
        try? property(name, type: "u", on: connection, timeout: timeout)?.readUInt32()
    }

    private static func boolProperty(_ name: String, on connection: BusConnection, timeout: Double) -> Bool? {
        try? property(name, type: "b", on: connection, timeout: timeout)?.readBool()
    }

    /// What the shell's `OUT_OF_DATE` state is reported as: ``problem`` and `--doctor` tell the
    /// user what to do from it.
    static let outOfDate = "rejected as out of date: its metadata does not name this GNOME Shell"

    /// The setting that makes GNOME Shell run extensions whatever versions their metadata name.
    package static let validationSetting = "gsettings set org.gnome.shell disable-extension-version-validation true"

    /// The shell's major version, when it answered.
    package var shellMajor: Int? { shellVersion.flatMap { Int($0.prefix { $0.isNumber }) } }

    /// Why the gnome backend cannot watch, with the command that fixes it; nil when it can.
    package var problem: String? {
        let shell = "GNOME Shell " + (shellVersion ?? "(version unknown)")
        switch finding {
        case .noBus(let reason): return reason
        case .noShell: return "GNOME Shell is not running on the session bus (\(Self.shellName) has no owner)"
        case .noExtension(let state) where state == Self.outOfDate:
            guard let major = shellMajor, major > Self.supportedMajors.upperBound else {
                // Metadata written before this GNOME Shell was known: this build's names it.
                return "\(shell) rejected the installed KeyboardAdapter extension as out of date (its metadata, "
                    + "written by an earlier kbwatch, names other GNOME Shells): run `\(Self.installCommand)`, then log "
                    + "out and in again"
            }
            return "\(shell) is newer than the GNOME Shells the KeyboardAdapter extension \(Self.release) is made "
                + "for (\(Self.supportedMajors.lowerBound) to \(Self.supportedMajors.upperBound)), so it rejected it as "
                + "out of date: install a newer KeyboardAdapter, or let the shell run it anyway with "
                + "`\(Self.validationSetting)`"
        case .noExtension(let state):
            return "\(shell) runs, but the KeyboardAdapter extension is not running (\(state)): run "
                + "`\(Self.installCommand)`"
        case .otherRelease(let release):
            return "\(shell) runs the KeyboardAdapter extension \(release), not \(Self.release): run "
                + "`\(Self.installCommand)`, then log out and in again"
        case .ready: return nil
        }
    }
}
