import Foundation
import TestSupport
import Testing

/// A throwaway copy of a newer Debian's userland with the project's packages installed by apt: an
/// overlay whose read-only lower layer is the userland, every change in a temporary upper layer,
/// mounted (with `/dev`, `/proc`, `/sys` and the host's `/tmp` in it) for the test and unmounted
/// after, so the userland itself stays as `scripts/userland` built it. Its programs run with
/// chroot (`use`, `Userland.Replacement`). Root only (the mounts, apt and chroot).
final class InstalledUserland {
    let stack: Stack
    /// The overlay's mount point: the copy's `/`.
    let root: String
    /// Seconds apt took (the index's update and the install).
    private(set) var installSeconds: Double = 0
    /// The packages the .debs are (`kbwatch`, `libkeyboard-adapter-1-0`, ...).
    let names: [String]
    private let directory: String
    private var mounted = true

    /// Mounts the overlay and installs `debs` with `extras` from the suite's archive (the tools a
    /// test needs that the userland lacks), without recommends.
    init(_ stack: Stack, debs: [String], extras: [String]) throws {
        self.stack = stack
        // Outside /tmp, which is mounted inside it.
        directory = "/var/tmp/kbwatch-overlay-\(stack.suite ?? "host")-" + UUID().uuidString.prefix(8)
        for sub in ["", "/upper", "/work", "/merged"] {
            try FileManager.default.createDirectory(
                atPath: directory + sub, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        }
        root = directory + "/merged"
        names = debs.map { String(($0 as NSString).lastPathComponent.prefix { $0 != "_" }) }
        let lower = Userland.root(stack)
        do {
            try Shell.require(
                "mount",
                [
                    "-t", "overlay", "overlay", "-o",
                    "lowerdir=\(lower),upperdir=\(directory)/upper,workdir=\(directory)/work", root,
                ])
            // Private: what is mounted under it stays out of the host's other mount points.
            try Shell.require("mount", ["--make-private", root])
            try Shell.require("mount", ["--rbind", "/dev", root + "/dev"])
            try Shell.require("mount", ["-t", "proc", "proc", root + "/proc"])
            try Shell.require("mount", ["--rbind", "/sys", root + "/sys"])
            try Shell.require("mount", ["--bind", "/tmp", root + "/tmp"])
            // The host's name server; the test user, who runs the compositors, known inside.
            try? FileManager.default.removeItem(atPath: root + "/etc/resolv.conf")
            try FileManager.default.copyItem(atPath: "/etc/resolv.conf", toPath: root + "/etc/resolv.conf")
            let user = try TestUser.ensure()
            try append("kbadapter:x:\(user.uid):\(user.gid)::/tmp:/usr/sbin/nologin\n", to: "/etc/passwd")
            try append("kbadapter:x:\(user.gid):\n", to: "/etc/group")
            try FileManager.default.createDirectory(atPath: root + "/var/tmp/debs", withIntermediateDirectories: true)
            for deb in debs {
                try FileManager.default.copyItem(
                    atPath: deb, toPath: root + "/var/tmp/debs/" + (deb as NSString).lastPathComponent)
            }
            // forky and sid are signed for a week at a time; a userland built earlier keeps its
            // snapshot's dates.
            let validity = stack == .debian13 ? "" : "-o Acquire::Check-Valid-Until=false "
            let start = Date()
            try run(
                "apt-get \(validity)update -q && apt-get install -y -q --no-install-recommends /var/tmp/debs/*.deb "
                    + extras.joined(separator: " "), timeout: 1200)
            installSeconds = Date().timeIntervalSince(start)
        } catch {
            unmount()
            throw error
        }
        print(
            "\(stack): apt installed the \(debs.count) packages and \(extras.joined(separator: " ")) in a copy of the userland in "
                + String(format: "%.0f s", installSeconds))
    }

    private func append(_ line: String, to path: String) throws {
        let text = (try? String(contentsOfFile: root + path, encoding: .utf8)) ?? ""
        guard !text.split(separator: "\n").contains(where: { line.hasPrefix($0 + "\n") }) else { return }
        try (text + line).write(toFile: root + path, atomically: true, encoding: .utf8)
        chmod(root + path, 0o644)
    }

    /// Runs `script` with sh as root in the copy, and returns its output; throws unless it exits 0.
    @discardableResult
    func run(_ script: String, timeout: Int = 300) throws -> String {
        try Shell.require(
            "chroot",
            [
                root, "/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
                "DEBIAN_FRONTEND=noninteractive", "/bin/sh", "-ec", script,
            ], timeout: timeout)
    }

    /// `body` with the helpers running `stack`'s programs from this copy.
    func use<T>(_ body: () throws -> T) rethrows -> T {
        try Userland.$replacement.withValue(Userland.Replacement(stack: stack, root: root), operation: body)
    }

    /// apt purge of every package installed from the .debs; what of their files is left (none, when
    /// the purge is clean), and which of them dpkg still knows.
    func purge() throws -> (left: [String], known: [String]) {
        let list = names.joined(separator: " ")
        let files = try run("for p in \(list); do dpkg -L \"$p\"; done").split(separator: "\n").map(String.init)
        try run("apt-get purge -y -q \(list)")
        let left = files.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        let known = try names.filter { name in
            try run("dpkg-query -W -f='${db:Status-Abbrev}' \(name) 2>/dev/null || true").hasPrefix("i")
        }
        return (left, known)
    }

    /// Unmounts the overlay with all under it and removes its layers.
    func unmount() {
        guard mounted else { return }
        mounted = false
        let status = (try? Shell.run("umount", ["--recursive", "--lazy", root]))?.status
        // Never remove a directory while the host's /tmp may still be mounted in it.
        if status == 0 { try? FileManager.default.removeItem(atPath: directory) }
    }

    deinit { unmount() }
}
