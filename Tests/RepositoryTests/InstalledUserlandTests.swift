import Foundation
import TestSupport
import Testing

extension PackageInstallTests {
    /// What a test of the installed packages needs beside them that a userland may lack: xvkbd,
    /// gcc and pkg-config for the C app, Qt's qml tool and its Wayland platform.
    static let userlandExtras = ["xvkbd", "gcc", "libc6-dev", "pkg-config", "qml-qt6", "qt6-wayland"]

    @Test(
        "every .deb installs with apt in a copy of a newer Debian's userland; from it, through the installed service its bus starts, on Xvfb with xvkbd and on headless sway with squeekboard: a Python GTK 4 app, a GJS script and a C program hear will-show at the keyboard's frame, local true for their own focused window and false for another app's, and did-hide; a QML file's keyboardRectangle is the keyboard's frame, then empty; on GNOME Shell the package's extension enabled with gnome-extensions enable is the one kbwatch --doctor names and the one its events come through; apt purge leaves no file of them",
        arguments: [Stack.debian13, .forky])
    func installedOnNewerDebian(stack: Stack) throws {
        guard
            try Userland.ready(
                stack,
                ["apt-get", "dpkg", "dbus-daemon", "sway", "squeekboard", "python3", "gjs", "gnome-extensions"]
                    + HeadlessGnomeShell.programs)
        else { return }
        guard Programs.isRoot else {
            try Programs.skip("needs root: an overlay mount, apt and chroot")
            return
        }
        guard try Programs.ready(["chroot", "mount", "umount", "Xvfb", "openbox", "xdotool", "xwininfo", "gdbus"])
        else {
            return
        }
        let started = Date()
        let debs = try Packaging.packages.get()
        let installed = try InstalledUserland(stack, debs: debs, extras: Self.userlandExtras)
        defer { installed.unmount() }
        let lower = Userland.root(stack)
        let version = try Packaging.sourceVersion()
        let ran = try installed.run("/usr/bin/kbwatch --version")
        #expect(ran == "kbwatch \(version)\n")
        let scenarios: [(String, (Stack) throws -> Void)] = [
            ("Xvfb with xvkbd", InstalledScenarios.xvkbd),
            ("headless sway with squeekboard", InstalledScenarios.squeekboard),
            ("GNOME Shell \(stack.gnomeShellMajor)", InstalledScenarios.gnomeShell),
        ]
        for (what, scenario) in scenarios {
            // One failing says so and leaves the others to run.
            do {
                try installed.use { try scenario(stack) }
            } catch {
                Issue.record("\(stack), \(what): \(error)")
            }
        }
        let (left, known) = try installed.purge()
        #expect(left.isEmpty, "left after apt purge: \(left)")
        #expect(known.isEmpty, "dpkg still knows \(known)")
        #expect(!FileManager.default.fileExists(atPath: lower + "/usr/bin/kbwatch"), "the userland itself changed")
        print("\(stack): installed, used and purged in \(String(format: "%.0f s", Date().timeIntervalSince(started)))")
    }
}
