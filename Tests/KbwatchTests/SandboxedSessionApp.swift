import Foundation
import TestSupport

/// The sandboxed app of ``SandboxedSubscriberTests/waylandApp`` in a compositor's session whose
/// bus belongs to the session's user (KWin's, GNOME Shell's): the session service started there,
/// then the proxy and the app, each as that user in a sandbox naming
/// ``SandboxedSubscriberTests/appID``.
struct SandboxedSessionApp {
    let service: WatchedProcess
    let proxy: WatchedProcess
    let app: ChildProcess

    /// Starts all three: `environment` is the session's (`VAR=value`), `extra` what the app adds
    /// to it, `run` runs a command as the session's user, `watch` starts one; the app names
    /// `other` as its own.
    init(
        environment: [String], extra: [String], user: (uid: uid_t, gid: gid_t), runtime: RuntimeDirectory,
        busAddress: String, naming other: String, run: ([String]) throws -> (status: Int32, output: String),
        watch: ([String]) throws -> WatchedProcess, kbwatch: ([String]) throws -> WatchedProcess
    ) throws {
        service = try kbwatch(["--serve", "--stay"])
        let service = service
        try Wait.require("the service on the session bus (\(service.errors))", timeout: 15) {
            (try? run([
                "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner", "org.keyboardadapter.Watcher",
            ]))?.output.contains("true") == true
        }
        let appID = SandboxedSubscriberTests.appID
        let info = try runtime.write("flatpak-info", "[Application]\nname=\(appID)\n")
        let proxySocket = runtime.xdg + "/proxy-bus"
        proxy = try watch(
            ["bwrap"]
                + SandboxedSubscriberTests.sandboxed(
                    info: info, shared: runtime.path,
                    ["xdg-dbus-proxy", busAddress, proxySocket, "--filter", "--talk=org.keyboardadapter.Watcher"]))
        let proxy = proxy
        try Wait.require("the proxy's socket (\(proxy.errors))", timeout: 10) {
            FileManager.default.fileExists(atPath: proxySocket)
        }
        let script = try runtime.write("sandboxed-chat.py", SandboxedSubscriberTests.waylandApp)
        let (program, arguments) = TestUser.command(
            ["/usr/bin/env", "-i"] + environment + extra + ["NO_AT_BRIDGE=1", "GSETTINGS_BACKEND=memory", "bwrap"]
                + SandboxedSubscriberTests.sandboxed(
                    info: info, shared: runtime.path,
                    ["/usr/bin/python3", script, "unix:path=" + proxySocket, appID, other]),
            as: user)
        app = try ChildProcess(program, arguments, directory: runtime.path)
    }

    /// Ends the app, the proxy and the service.
    func stop() {
        app.stop()
        proxy.stop()
        service.stop()
    }
}
