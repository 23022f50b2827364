import Foundation
import Testing

/// The demo installs only what it needs, and nothing the tests do not have too.
@Suite("demo packages")
struct DemoPackagesTests {
    static func packages(_ file: String) throws -> [String] {
        try String(contentsOf: DocumentationTests.root.appendingPathComponent(file), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test("scripts/demo installs scripts/demo-packages, a part of the test suite's scripts/debian-packages")
    func demoList() throws {
        let demo = try Self.packages("scripts/demo-packages")
        let all = Set(try Self.packages("scripts/debian-packages"))
        #expect(demo.count < all.count / 2, "the demo's list is the demo's: \(demo)")
        #expect(demo.filter { !all.contains($0) }.isEmpty, "not in scripts/debian-packages: \(demo)")
        // What the demo runs comes from its list: the X server, the window manager, the keyboard
        // and the tools, and the C libraries kbwatch and kbdemo link.
        for package in ["xvfb", "openbox", "xvkbd", "xdotool", "x11-utils", "libxft-dev", "libsystemd-dev"] {
            #expect(demo.contains(package), "scripts/demo-packages lacks \(package)")
        }
        for heavy in ["kwin-wayland", "sway", "fcitx5", "onboard", "lintian"] {
            #expect(!demo.contains(heavy), "the demo does not need \(heavy)")
        }
        let script = try String(
            contentsOf: DocumentationTests.root.appendingPathComponent("scripts/demo"), encoding: .utf8)
        #expect(script.contains("scripts/install-deps scripts/demo-packages"))
    }
}
