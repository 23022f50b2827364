import Glibc
import KbwatchOutput
import KeyboardAdapter
import KeyboardBackendInterface

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `kbwatch --install-gnome-extension` and `--uninstall-gnome-extension`: the package's GNOME
/// Shell extension written to the user's extensions folder in the flavour the shell needs
/// (scripts for 43 and 44, ES modules from 45 on), added to `org.gnome.shell enabled-extensions`,
/// and what else it takes to run. GNOME Shell reads its extensions folder only when it starts: an
/// extension it has not seen yet (or whose older release it runs) starts at the next login.
enum GnomeExtensionInstaller {
    static let uuid = "keyboard-adapter@keyboardadapter.org"
    static let release = "1.0.0"
    static let objectPath = "/org/keyboardadapter/GnomeShell"

    /// Which extension style a shell needs.
    enum Flavour: String {
        case legacy, modules

        /// The style GNOME Shell `major` loads.
        init(major: Int) { self = major >= 45 ? .modules : .legacy }

        var files: [(name: String, text: String)] {
            let head = self == .modules ? modulesHead : legacyHead
            return [
                ("extension.js", head + "\n" + body),
                ("metadata.json", self == .modules ? modulesMetadata : legacyMetadata),
                ("org.keyboardadapter.GnomeShell1.xml", interfaceXML),
            ]
        }
    }

    /// The newest GNOME Shell major version the extension's metadata names.
    static var newestMajor: Int {
        guard let list = modulesMetadata.firstRange(of: "\"shell-version\": [")?.upperBound else { return 0 }
        let names = modulesMetadata[list...].prefix { $0 != "]" }
        return names.split(separator: ",").compactMap { Int($0.filter(\.isNumber)) }.max() ?? 0
    }

    /// The extension's folder: `$XDG_DATA_HOME` (or `~/.local/share`) `/gnome-shell/extensions/<uuid>`.
    static func folder(_ environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/gnome-shell/extensions/" + uuid
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.local/share/gnome-shell/extensions/" + uuid
    }

    /// Installs and enables the extension for `shellVersion`, or for the shell that runs (or is
    /// installed) here; the lines say what was done and what is left to do.
    static func install(environment: [String: String], shellVersion: String? = nil) throws(InstallFailure)
        -> [String]
    {
        guard let folder = folder(environment) else { throw InstallFailure("HOME is not set: no extensions folder") }
        let running = runningShell(environment)
        guard let version = shellVersion ?? running ?? installedShellVersion() else {
            throw InstallFailure(
                "cannot tell GNOME Shell's version: it does not answer on the session bus and `gnome-shell --version` "
                    + "does not run")
        }
        guard let major = Int(version.prefix { $0.isNumber }), major >= 43 else {
            throw InstallFailure("GNOME Shell \(version) is too old: the extension needs GNOME Shell 43 or later")
        }
        let flavour = Flavour(major: major)
        let newest = newestMajor
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for file in flavour.files {
                try file.text.write(toFile: folder + "/" + file.name, atomically: true, encoding: .utf8)
            }
        } catch {
            throw InstallFailure("cannot write \(folder): \(error)")
        }
        var lines = ["installed the KeyboardAdapter extension \(release) for GNOME Shell \(version) in \(folder)"]
        if major > newest {
            lines.append(
                "note: GNOME Shell \(version) is newer than the GNOME Shells this extension is made for (up to "
                    + "\(newest)): the shell rejects it as out of date; install a newer KeyboardAdapter, or let the "
                    + "shell run it anyway with `gsettings set org.gnome.shell disable-extension-version-validation true`"
            )
        }
        try changeEnabled(adding: true, environment: environment)
        lines.append("enabled it in org.gnome.shell enabled-extensions")
        if settingsValue("org.gnome.shell", "disable-user-extensions", environment) == "true" {
            lines.append(
                "note: org.gnome.shell disable-user-extensions is true, which keeps every user extension off; "
                    + "`gsettings set org.gnome.shell disable-user-extensions false` turns them on")
        }
        guard running != nil else {
            lines.append("GNOME Shell is not running here: the extension starts with it")
            return lines
        }
        if waitUntilAnswering(environment, timeout: 3) {
            lines.append("GNOME Shell runs it now: `kbwatch --backend gnome` can watch")
        } else if environment["XDG_SESSION_TYPE"] == "x11" {
            lines.append(
                "GNOME Shell reads new extensions when it starts: restart it (Alt+F2, then r) or log out and in again")
        } else {
            lines.append(
                "GNOME Shell on Wayland reads new extensions only when it starts: log out and in again to start it")
        }
        return lines
    }

    /// Disables the extension and removes its folder.
    static func uninstall(environment: [String: String]) throws(InstallFailure) -> [String] {
        guard let folder = folder(environment) else { throw InstallFailure("HOME is not set: no extensions folder") }
        try changeEnabled(adding: false, environment: environment)
        var lines = ["removed the KeyboardAdapter extension from org.gnome.shell enabled-extensions"]
        if FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.removeItem(atPath: folder)
            } catch {
                throw InstallFailure("cannot remove \(folder): \(error)")
            }
            lines.append("removed \(folder)")
        } else {
            lines.append("\(folder) was not there")
        }
        return lines
    }

    /// The system-wide extension folders GNOME Shell looks in, in its order:
    /// `<dir>/gnome-shell/extensions/<uuid>` for each of `$XDG_DATA_DIRS` (or
    /// `/usr/local/share:/usr/share`); the kbwatch package installs the extension in `/usr/share`'s.
    static func systemFolders(_ environment: [String: String]) -> [String] {
        let directories =
            (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        var seen: Set<String> = []
        return directories.compactMap { directory in
            let folder =
                (directory.hasSuffix("/") ? String(directory.dropLast()) : directory)
                + "/gnome-shell/extensions/" + uuid
            return seen.insert(folder).inserted ? folder : nil
        }
    }

    /// The release an extension folder holds (its metadata's `version-name`), or nil without one.
    static func installedRelease(_ folder: String) -> String? {
        let metadata = try? String(contentsOfFile: folder + "/metadata.json", encoding: .utf8)
        return metadata.flatMap { text in
            text.firstRange(of: "\"version-name\": \"").map { range in
                String(text[range.upperBound...].prefix { $0 != "\"" }.prefix(32))
            }
        }
    }

    /// What `--doctor` adds about the extension on this machine: its folders (the user's and the
    /// system's) with their releases, which one GNOME Shell loads (the user's shadows the
    /// system's), whether it is enabled, and whether the shell's keyboard is.
    static func doctorLines(environment: [String: String]) -> [String] {
        var lines: [String] = []
        let user = folder(environment)
        let userRelease = user.flatMap(installedRelease)
        if let user {
            lines.append("extension folder \(user): " + (userRelease.map { "release \($0)" } ?? "not installed"))
        }
        var system: (folder: String, release: String)?
        for folder in systemFolders(environment) {
            guard let release = installedRelease(folder) else { continue }
            lines.append("system extension folder \(folder): release \(release)")
            if system == nil { system = (folder, release) }
        }
        if let user, let userRelease {
            lines.append(
                "extension in use: the user's (\(user), release \(userRelease))"
                    + (system.map { "; it shadows the system's in \($0.folder)" } ?? ""))
        } else if let system {
            lines.append("extension in use: the system's (\(system.folder), release \(system.release))")
        } else {
            lines.append(
                "extension in use: none installed (the kbwatch package installs it system-wide; "
                    + "`kbwatch --install-gnome-extension` for this user)")
        }
        if let enabled = settingsValue("org.gnome.shell", "enabled-extensions", environment) {
            let listed = enabled.contains("'\(uuid)'")
            lines.append("org.gnome.shell enabled-extensions " + (listed ? "lists" : "omits") + " it")
            if !listed, userRelease == nil, system != nil {
                lines.append(
                    "`gnome-extensions enable \(uuid)` (or the Extensions app) enables the system's for this user")
            }
        }
        if let keyboard = settingsValue("org.gnome.desktop.a11y.applications", "screen-keyboard-enabled", environment) {
            lines.append("screen-keyboard-enabled: \(keyboard)")
        }
        return lines
    }

    // MARK: - The shell and its settings

    /// GNOME Shell's version as it answers on the bus, when it runs.
    private static func runningShell(_ environment: [String: String]) -> String? {
        let result = run(
            "gdbus",
            [
                "call", "--session", "--dest", "org.gnome.Shell", "--object-path", "/org/gnome/Shell", "--method",
                "org.freedesktop.DBus.Properties.Get", "org.gnome.Shell", "ShellVersion",
            ], environment)
        guard result.status == 0, let start = result.output.firstIndex(of: "'") else { return nil }
        let version = result.output[result.output.index(after: start)...].prefix { $0 != "'" }
        return version.isEmpty ? nil : String(version.prefix(32))
    }

    /// The installed shell's version, from `gnome-shell --version` (`GNOME Shell 43.9`).
    private static func installedShellVersion() -> String? {
        let result = run("gnome-shell", ["--version"], ProcessEnvironment.current)
        guard result.status == 0, let range = result.output.firstRange(of: "GNOME Shell ") else { return nil }
        let version = result.output[range.upperBound...].prefix { !$0.isWhitespace }
        return version.isEmpty ? nil : String(version.prefix(32))
    }

    /// Whether the extension's object answers (the shell enabled it live).
    private static func waitUntilAnswering(_ environment: [String: String], timeout: Double) -> Bool {
        let end = MonotonicClock.now() + timeout
        repeat {
            let result = run(
                "gdbus",
                [
                    "call", "--session", "--dest", "org.gnome.Shell", "--object-path", objectPath, "--method",
                    "org.freedesktop.DBus.Properties.Get", "org.keyboardadapter.GnomeShell1", "Release",
                ], environment)
            if result.status == 0, result.output.contains("'\(release)'") { return true }
            usleep(100_000)
        } while MonotonicClock.now() < end
        return false
    }

    /// Adds the uuid to (or removes it from) `enabled-extensions`, and removes it from
    /// `disabled-extensions` when adding.
    private static func changeEnabled(adding: Bool, environment: [String: String]) throws(InstallFailure) {
        guard let current = settingsValue("org.gnome.shell", "enabled-extensions", environment) else {
            throw InstallFailure(
                "cannot read org.gnome.shell enabled-extensions with gsettings (is GNOME Shell installed?)")
        }
        var list = parseStringList(current)
        list.removeAll { $0 == uuid }
        if adding { list.append(uuid) }
        try setSettings("org.gnome.shell", "enabled-extensions", list, environment)
        if adding, let disabled = settingsValue("org.gnome.shell", "disabled-extensions", environment) {
            let others = parseStringList(disabled)
            if others.contains(uuid) {
                try setSettings("org.gnome.shell", "disabled-extensions", others.filter { $0 != uuid }, environment)
            }
        }
    }

    /// The strings of a GVariant `as` as gsettings prints it: `['a', 'b']` or `@as []`.
    static func parseStringList(_ text: String) -> [String] {
        var items: [String] = []
        var current: String?
        var escaped = false
        for character in text {
            if var item = current {
                if escaped {
                    item.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "'" {
                    items.append(item)
                    current = nil
                    continue
                } else {
                    item.append(character)
                }
                current = item
            } else if character == "'" {
                current = ""
            }
        }
        return items
    }

    private static func setSettings(
        _ schema: String, _ key: String, _ list: [String], _ environment: [String: String]
    ) throws(InstallFailure) {
        let value =
            list.isEmpty
            ? "@as []"
            : "["
                + list.map { "'" + $0.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
                .joined(separator: ", ") + "]"
        let result = run("gsettings", ["set", schema, key, value], environment)
        guard result.status == 0 else {
            throw InstallFailure("gsettings set \(schema) \(key) failed: \(result.output.prefix(300))")
        }
    }

    private static func settingsValue(_ schema: String, _ key: String, _ environment: [String: String]) -> String? {
        let result = run("gsettings", ["get", schema, key], environment)
        guard result.status == 0 else { return nil }
        return String(result.output.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// Runs a program found on PATH with `environment`, to completion: its exit status (127 when
    /// it cannot be started, 128 + N when signal N ended it) and its output, standard output and
    /// error together, at most 64 KiB of it.
    private static func run(_ program: String, _ arguments: [String], _ environment: [String: String])
        -> (status: Int32, output: String)
    {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (127, "") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        let arguments = ([program] + arguments).map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, program, &actions, nil, arguments, variables)
        close(ends[1])
        defer { close(ends[0]) }
        guard spawned == 0 else { return (127, "") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count > 0 {
                if output.count < 65_536 { output += buffer[0..<min(count, 65_536 - output.count)] }
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, String(decoding: output, as: UTF8.self))
    }
}

/// Why the extension could not be installed or removed.
struct InstallFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
