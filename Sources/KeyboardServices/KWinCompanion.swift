import Glibc
import KeyboardBackendInterface
import SystemdBus

/// The package's KWin script (Companions/kwin), loaded into the KWin that owns `org.kde.KWin`
/// for as long as a watch of KWin's virtual keyboard runs, on that watch's bus connection. KWin 6
/// tells scripts where it puts its input method's panel (a window with `inputMethod` set) and
/// which window has the focus; nothing else open to other clients does. KWin 5 does not: there
/// the script says so, is unloaded, and the keyboard's place stays unknown.
///
/// The script calls `Report` on this connection's own object with one JSON text; only calls from
/// KWin's connection are taken. Each watcher loads a script of its own, named after its unique
/// bus name; a watcher killed before it unloaded its script leaves it behind, calling a name the
/// bus never gives again, until the next watcher's start unloads it. Used on the loop's thread.
final class KWinCompanion {
    static let objectPath = "/org/keyboardadapter/KWinCompanion"
    static let interfaceName = "org.keyboardadapter.KWinCompanion1"
    /// Every script's plugin name starts so; its file is `<plugin>.js` in ``directory(in:)``.
    static let pluginPrefix = "keyboard-adapter-"
    /// The longest report taken, in bytes (a panel report is about 120).
    static let maximumReportBytes = 4096
    /// At most this many leftover scripts are looked at per start.
    static let maximumSwept = 64
    /// How long each start-up and unload call may wait for KWin.
    static let callTimeout = 1.0

    private let connection: BusConnection
    private let kwinOwner: String
    private let pluginName: String
    private let file: String
    private var slot: BusSlot?
    private var isLoaded = false
    /// The id of the panel window reported last, so that a late `panelGone` of an earlier one
    /// leaves a newer one alone.
    private var panelID: String?
    /// The script's first reports have come (the focus follows the hello and the windows up).
    private var hasFirstReports = false
    /// What the script reports; nil until a KWin 6 script said hello.
    private(set) var report: CompanionReport?
    /// For `--doctor`.
    private(set) var status: String
    /// Called on the loop's thread after a report changed ``report`` or ``status``.
    var onChange: (() -> Void)?

    /// Writes the script, sweeps what killed watchers left, loads the script and runs it. Nil
    /// with the reason in `failure` when it cannot (no runtime directory, no KWin scripting).
    init?(connection: BusConnection, environment: [String: String], failure: inout String?) {
        self.connection = connection
        guard let unique = connection.uniqueName, unique.hasPrefix(":"),
            unique.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ":") })
        else {
            failure = "the bus gave no unique name to this connection"
            return nil
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), runtime.utf8.count < 1024 else {
            failure = "XDG_RUNTIME_DIR is not set: there is nowhere to write KWin's script"
            return nil
        }
        do throws(BusFailure) {
            let reply = try connection.call(
                .busDriver("GetNameOwner", [.string("org.kde.KWin")]), timeout: Self.callTimeout)
            guard reply.error == nil, reply.hasSignature("s") else { throw reply.error ?? BusFailure(code: EBADMSG) }
            kwinOwner = try reply.readString()
        } catch {
            failure = "org.kde.KWin has no owner (\(error))"
            return nil
        }
        let directory = Self.directory(in: runtime)
        guard Self.makeDirectory(directory) else {
            failure = "cannot create \(directory): \(String(cString: strerror(errno)))"
            return nil
        }
        Self.sweep(directory, on: connection)
        pluginName = Self.pluginPrefix + unique.dropFirst()
        file = directory + "/" + pluginName + ".js"
        status = "KWin script \(pluginName) loading"
        let script = Self.scriptTemplate.replacing("@RECEIVER@", with: unique)
        guard Self.write(script, to: file) else {
            failure = "cannot write \(file): \(String(cString: strerror(errno)))"
            return nil
        }
        do throws(BusFailure) {
            slot = try connection.addObject(Self.objectPath) { [unowned self] call in self.received(call) }
            try load()
        } catch {
            slot = nil
            unlink(file)
            failure = "KWin did not run its script: \(error)"
            return nil
        }
    }

    /// Waits, at most `timeout` seconds, for the script's first reports (its hello, the
    /// keyboard's window when one is up, then the focus), so that the watch's first state has
    /// them: a watcher started while the keyboard is up, or `kbwatch --state`, knows its place at
    /// once. Start-up only: the loop's other sources wait meanwhile.
    func awaitFirstReports(timeout: Double) {
        let end = MonotonicClock.now() + timeout
        while !hasFirstReports && isLoaded {
            let status = connection.process()
            if status < 0 { return }
            if status > 0 { continue }
            let left = end - MonotonicClock.now()
            guard left > 0, let events = connection.events else { return }
            var wanted = pollfd(fd: connection.descriptor, events: events, revents: 0)
            _ = poll(&wanted, 1, Int32(left * 1000) + 1)
        }
        // Whatever came by then counts: later reports are passed on as they come.
        if !hasFirstReports {
            hasFirstReports = true
            onChange?()
        }
    }

    /// `$XDG_RUNTIME_DIR/keyboard-adapter/kwin`.
    static func directory(in runtime: String) -> String { runtime + "/keyboard-adapter/kwin" }

    private func load() throws(BusFailure) {
        let loaded = try connection.call(scripting("loadScript", [.string(file), .string(pluginName)]), timeout: 1)
        if let error = loaded.error { throw error }
        let id = try loaded.readInt32()
        guard id >= 0 else { throw BusFailure(code: EEXIST, message: "loadScript answered \(id)") }
        isLoaded = true
        // KWin 6 puts the script at /Scripting/ScriptN, KWin 5 at /N.
        var ran: BusFailure?
        for path in ["/Scripting/Script\(id)", "/\(id)"] {
            let call = BusCall(
                destination: "org.kde.KWin", path: path, interface: "org.kde.kwin.Script", member: "run")
            let reply = try connection.call(call, timeout: Self.callTimeout)
            ran = reply.error
            if ran == nil { return }
        }
        unload()
        throw ran ?? BusFailure(code: ENOENT)
    }

    private func scripting(_ member: String, _ arguments: [BusArgument]) -> BusCall {
        BusCall(
            destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: member,
            arguments: arguments)
    }

    // MARK: - Reports

    private func received(_ call: BusMessage) -> Bool {
        // Anyone on the bus can call; only KWin's own connection is heard.
        guard call.sender == kwinOwner, call.member == (Self.interfaceName, "Report") else { return false }
        connection.replyEmpty(to: call)
        guard call.hasSignature("s"), let text = try? call.readString(limit: Self.maximumReportBytes),
            text.utf8.count < Self.maximumReportBytes
        else { return true }
        if let next = try? CompanionMessage(text) { apply(next) }
        return true
    }

    private func apply(_ message: CompanionMessage) {
        switch message {
        case .hello(let api):
            guard api >= 6 else {
                unload()
                status = "KWin 5's scripts see the keyboard only as the whole output: its place stays unknown"
                return changed()
            }
            report = CompanionReport()
            status = "KWin script \(pluginName) reports the keyboard's window"
        case .panel(let id, let panel):
            guard report != nil else { return }
            panelID = id
            report?.panel = panel
        case .panelGone(let id):
            guard report != nil, id == panelID else { return }
            panelID = nil
            report?.panel = nil
        case .focus(let focus):
            guard report != nil else { return }
            report?.focus = focus
            hasFirstReports = true
        }
        changed()
    }

    /// Passes a change on, once the first reports are all in: a keyboard up at start is judged
    /// with the focus of that moment, not before the focus has been reported.
    private func changed() {
        guard hasFirstReports || report == nil else { return }
        onChange?()
    }

    // MARK: - End

    /// Unloads the script and removes its file. Idempotent.
    func unload() {
        slot = nil
        guard isLoaded else { return }
        isLoaded = false
        _ = try? connection.call(scripting("unloadScript", [.string(pluginName)]), timeout: Self.callTimeout)
        unlink(file)
    }

    /// Unloads the scripts of watchers that are gone (their unique name has no owner) and removes
    /// their files; files that are not this user's regular files are left alone.
    private static func sweep(_ directory: String, on connection: BusConnection) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        var looked = 0
        while looked < maximumSwept, let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(pluginPrefix), name.hasSuffix(".js") else { continue }
            looked += 1
            let plugin = String(name.dropLast(3))
            let owner = ":" + plugin.dropFirst(pluginPrefix.count)
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else { continue }
            guard let reply = try? connection.call(.busDriver("NameHasOwner", [.string(owner)]), timeout: callTimeout),
                reply.error == nil, reply.hasSignature("b"), (try? reply.readBool()) == false
            else { continue }
            _ = try? connection.call(
                BusCall(
                    destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting",
                    member: "unloadScript", arguments: [.string(plugin)]), timeout: callTimeout)
            unlink(path)
        }
    }

    private static func makeDirectory(_ path: String) -> Bool {
        var built = ""
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o700) != 0 && errno != EEXIST { return false }
        }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    private static func write(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }
}
