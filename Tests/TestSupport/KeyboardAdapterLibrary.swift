import Foundation

/// libkeyboard-adapter (`libkeyboard-adapter/`, the GObject library in C, and its GTK 4 companion
/// where libgtk-4-dev is there), built with meson into a scratch directory under `.build` once per
/// test process, for its own tests and for the examples written on it.
public enum KeyboardAdapterLibrary {
    public static let source = SchemaValidator.repository.appendingPathComponent("libkeyboard-adapter").path
    public static let buildDirectory = SchemaValidator.repository.appendingPathComponent(
        ".build/libkeyboard-adapter"
    ).path
    /// What building it takes.
    public static let buildPrograms = [
        "meson", "ninja", "cc", "pkg-config", "g-ir-scanner", "g-ir-compiler", "vapigen", "valac", "gi-docgen",
    ]

    /// What building the library came to.
    public enum Build: Sendable {
        /// Built: meson's and the compilers' output, and the warnings in it (there must be none).
        case built(output: String, warnings: [String])
        /// Anything else: a failure.
        case failed(String)
    }

    /// Built once per test process, from nothing (the scratch directory removed first).
    public static let build: Build = {
        try? FileManager.default.removeItem(atPath: buildDirectory)
        // Standard error too: the compiler's and the scanners' warnings, and meson's reasons.
        func run(_ arguments: [String]) -> (status: Int32, output: String) {
            let result = try? Programs.run(
                "/bin/sh", ["-c", "exec \"$@\" 2>&1", "sh", "meson"] + arguments, timeout: 600)
            return result ?? (-1, "meson \(arguments.joined(separator: " ")) did not finish")
        }
        // The GTK 4 companion where libgtk-4-dev is there (its tests say when it is not).
        let gtk4 = (try? Programs.run("pkg-config", ["--exists", "gtk4"]).status) == 0
        let setup = run([
            "setup", "-Ddocumentation=true", "-Dgtk4=\(gtk4 ? "enabled" : "disabled")", buildDirectory, source,
        ])
        guard setup.status == 0 else { return .failed("meson setup \(buildDirectory) \(source):\n\(setup.output)") }
        let compile = run(["compile", "-C", buildDirectory])
        guard compile.status == 0 else { return .failed("meson compile -C \(buildDirectory):\n\(compile.output)") }
        let warnings = (setup.output + compile.output).split(separator: "\n").map(String.init).filter {
            $0.localizedCaseInsensitiveContains("warning")
        }
        return .built(output: setup.output + compile.output, warnings: warnings)
    }()

    /// Whether the library is built, for a program that uses it: false (a skip, a failure under
    /// CI) when a build tool is missing; throws when the build failed.
    public static func ready() throws -> Bool {
        guard try Programs.ready(buildPrograms) else { return false }
        if case .failed(let reason) = build { throw TestFailure(reason) }
        return true
    }

    /// Whether the GTK 4 companion is built too (libgtk-4-dev was there); a skip when not.
    public static func gtk4Ready() throws -> Bool {
        guard try ready() else { return false }
        guard FileManager.default.fileExists(atPath: buildDirectory + "/gtk4/KeyboardAdapterGtk4-1.typelib") else {
            try Programs.skip("libgtk-4-dev is missing: libkeyboard-adapter-gtk4 is not built")
            return false
        }
        return true
    }

    /// The environment that finds the build's libraries and typelibs.
    public static var environment: [String: String?] {
        let libraries = [buildDirectory + "/keyboard-adapter", buildDirectory + "/gtk4"].joined(separator: ":")
        return ["GI_TYPELIB_PATH": libraries, "LD_LIBRARY_PATH": libraries]
    }

    /// The environment in which `pkg-config` finds the build's uninstalled keyboard-adapter-1 (and
    /// keyboard-adapter-gtk4-1).
    public static var pkgConfigEnvironment: [String: String?] {
        ["PKG_CONFIG_PATH": buildDirectory + "/meson-uninstalled"]
    }
}
