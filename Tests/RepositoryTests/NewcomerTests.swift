import Foundation
import TestSupport
import Testing

/// The README's set-up commands where a newcomer runs them: a bare Debian 12 with the Swift
/// toolchain alone. A fresh copy of the `bookworm` userland (`scripts/userland bookworm`: the
/// packages the toolchain needs on Debian 12 and nothing else), the host's toolchain bound
/// read-only at its own path, a clean clone of the commit under test, everything run as root with
/// no display: what the commands need beyond the toolchain, they must install themselves.
///
/// Slow (the demo's build and a release build, in a userland with nothing built): `scripts/test`
/// runs it alone, last.
@Suite("newcomer", .serialized)
struct NewcomerTests {
    /// The pristine userland, as `scripts/userland bookworm` builds it.
    static let userland = Userland.base + "/bookworm/root"

    /// Whether the test can run: as root (it runs apt in the userland), with the userland built.
    static func ready() throws -> Bool {
        guard Programs.isRoot else {
            try Programs.skip("not root: the newcomer's commands install packages in their userland as root")
            return false
        }
        let release = (try? String(contentsOfFile: userland + "/etc/os-release", encoding: .utf8)) ?? ""
        guard release.contains("VERSION_CODENAME=bookworm"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap")
        else {
            try Programs.skip("missing the bare Debian 12 userland (run scripts/userland bookworm; root needed once)")
            return false
        }
        return try Programs.ready(["git", "cp"])
    }

    @Test(
        "In a bare Debian 12 with only the Swift toolchain, as root: scripts/demo --headless prints kbwatch's and kbdemo's events and saves its four screenshots; scripts/build-deb builds the package; scripts/install --prefix installs a kbwatch that runs"
    )
    func readmeSetUpCommands() throws {
        guard try Self.ready() else { return }
        let toolchain = try DemoBuild.toolchainRoot()
        let work = Userland.base + "/newcomer.\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work + "/tmp", withIntermediateDirectories: true)
        chmod(work + "/tmp", 0o1777)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // A copy, so that what the commands install never reaches the userland the next run copies.
        try Shell.require("cp", ["-a", "--reflink=auto", Self.userland, work + "/root"], timeout: 600)
        let checkout = work + "/root/root/KeyboardAdapter"
        let commit = try Shell.require("git", ["-C", Packaging.root, "rev-parse", "HEAD"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try Shell.require("git", ["clone", "--quiet", "--no-hardlinks", Packaging.root, checkout], timeout: 300)
        try Shell.require("git", ["-C", checkout, "checkout", "--quiet", "--detach", commit])

        let commands = """
            set -e
            scripts/demo --headless
            echo '== newcomer: scripts/build-deb'
            scripts/build-deb
            echo '== newcomer: scripts/install --prefix /root/.local'
            scripts/install --prefix /root/.local
            /root/.local/bin/kbwatch --version
            """
        let (status, output) = try Shell.run(
            "bwrap",
            [
                "--bind", work + "/root", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/sys", "/sys",
                "--bind", work + "/tmp", "/tmp", "--ro-bind", toolchain, toolchain,
                "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf",
                // Root inside, as the newcomer is: apt drops to its own user and back.
                "--cap-add", "ALL", "--unshare-pid", "--die-with-parent", "--chdir", "/root/KeyboardAdapter",
                "/usr/bin/env", "-i", "HOME=/root", "LANG=C.UTF-8", "TERM=dumb",
                "PATH=\(toolchain)/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "bash", "-c", commands,
            ], timeout: 3000)
        let tail = String(output.suffix(6000))
        #expect(status == 0, "the newcomer's commands exited \(status):\n\(tail)")

        // kbwatch's events of the demo's first part, then kbdemo's.
        let lines = output.split(separator: "\n")
        // Neither SwiftPM nor a compiler had anything to warn of.
        let warnings = lines.filter { $0.hasPrefix("warning:") || $0.contains(": warning:") }
        #expect(warnings.isEmpty, "\(warnings.joined(separator: "\n"))")
        for event in ["willShow", "didShow", "willChangeFrame", "didChangeFrame", "willHide", "didHide"] {
            #expect(
                lines.contains {
                    $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first == Substring(event)
                },
                "no kbwatch line for \(event):\n\(tail)")
            #expect(lines.contains { $0.hasPrefix("kbdemo: \(event) ") }, "no kbdemo line for \(event):\n\(tail)")
        }
        let screenshots = lines.filter { $0.hasPrefix("/tmp/kbdemo-screenshots.") && $0.hasSuffix(".png") }
        #expect(screenshots.count == 4, "the demo named \(screenshots.count) screenshots:\n\(tail)")
        for screenshot in screenshots {
            let data = FileManager.default.contents(atPath: work + screenshot) ?? Data()
            #expect(
                data.starts(with: [0x89, 0x50, 0x4e, 0x47]) && data.count > 4096, "\(screenshot): \(data.count) bytes")
        }
        // The package, and the installed kbwatch.
        let debs = (try? FileManager.default.contentsOfDirectory(atPath: checkout + "/.build/deb")) ?? []
        #expect(debs.contains { $0.hasPrefix("kbwatch_") && $0.hasSuffix("_amd64.deb") }, "\(debs)\n\(tail)")
        #expect(output.contains("\nkbwatch \(try Packaging.sourceVersion())\n"), "\(tail)")
    }
}
