import Foundation
import TestSupport
import Testing

/// The demo installs only what it needs, and everything its build needs: its package lists are held
/// against what the products it builds include and link.
@Suite("demo packages")
struct DemoPackagesTests {
    static func packages(_ file: String) throws -> [String] {
        try String(contentsOf: DocumentationTests.root.appendingPathComponent(file), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test(
        "scripts/demo installs scripts/build-packages and scripts/demo-packages, both a part of the test suite's scripts/debian-packages"
    )
    func demoList() throws {
        let build = try Self.packages("scripts/build-packages")
        let demo = try Self.packages("scripts/demo-packages")
        let all = Set(try Self.packages("scripts/debian-packages"))
        #expect(build.count + demo.count < all.count / 2, "the demo's lists are the demo's: \(build + demo)")
        #expect((build + demo).filter { !all.contains($0) }.isEmpty, "not in scripts/debian-packages: \(build + demo)")
        // What the demo runs comes from its list: the X server, the window manager, the keyboard
        // and the tools.
        for package in ["xvfb", "openbox", "xvkbd", "xdotool", "x11-utils"] {
            #expect(demo.contains(package), "scripts/demo-packages lacks \(package)")
        }
        for heavy in ["kwin-wayland", "sway", "fcitx5", "onboard", "lintian"] {
            #expect(!(build + demo).contains(heavy), "the demo does not need \(heavy)")
        }
        let root = DocumentationTests.root
        let demoScript = try String(contentsOf: root.appendingPathComponent("scripts/demo"), encoding: .utf8)
        #expect(demoScript.contains("scripts/install-deps scripts/build-packages scripts/demo-packages"))
        let install = try String(contentsOf: root.appendingPathComponent("scripts/install"), encoding: .utf8)
        #expect(install.contains("scripts/install-deps scripts/build-packages"))
        let deb = try String(contentsOf: root.appendingPathComponent("scripts/build-deb"), encoding: .utf8)
        #expect(deb.contains("scripts/install-deps scripts/build-packages scripts/deb-packages"))
    }

    /// Every header, library and pkg-config file that the products built by `scripts/demo`,
    /// `scripts/demo-screenshots` and `scripts/install` reach comes from a package of
    /// scripts/build-packages or the Swift toolchain's own list, or one they depend on: the C
    /// files and module maps of those products' targets are preprocessed as the build does, and
    /// each file they read is looked up with dpkg.
    @Test(
        "scripts/build-packages has the package of every header, library and pkg-config file the demo's build reaches")
    func buildListCoversTheBuild() throws {
        let products = try DemoBuild.products(scripts: ["scripts/demo", "scripts/demo-screenshots", "scripts/install"])
        #expect(Set(products).isSuperset(of: ["kbwatch", "kbdemo", "kbshot"]), "\(products)")
        let build = try DemoBuild(products: products)
        let files = try build.filesRead()
        #expect(files.contains { $0.hasSuffix("/X11/Xlib.h") }, "the preprocessing found no Xlib: \(files)")
        let owners = try Debian.owners(of: files)
        let unowned = files.filter { owners[$0] == nil }
        #expect(unowned.isEmpty, "files no Debian package has: \(unowned)")
        let listed = try Self.packages("scripts/build-packages") + Self.packages("scripts/userland-packages/bookworm")
        let installed = try Debian.dependencyClosure(of: listed)
        var missing: [String: [String]] = [:]
        for (file, packages) in owners where packages.allSatisfy({ !installed.contains($0) }) {
            missing[packages.joined(separator: " or "), default: []].append(file)
        }
        #expect(
            missing.isEmpty,
            """
            scripts/build-packages lacks what the build reaches (package: files):
            \(missing.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.sorted().prefix(3).joined(separator: ", "))" }.joined(separator: "\n"))
            """)
    }
}

/// The C side of a set of the package's products, read from `swift package dump-package`: the C
/// targets they reach, the headers their C files and module maps include, the libraries they link
/// and the pkg-config files they name.
struct DemoBuild {
    let targets: [[String: Any]]
    let pkgConfigNames: [String]

    /// The products `swift build --product NAME` builds in `scripts`.
    static func products(scripts: [String]) throws -> [String] {
        var names: [String] = []
        for script in scripts {
            let text = try String(
                contentsOf: DocumentationTests.root.appendingPathComponent(script), encoding: .utf8)
            for match in text.matches(of: /--product ([A-Za-z0-9_-]+)/) where !names.contains(String(match.output.1)) {
                names.append(String(match.output.1))
            }
        }
        return names
    }

    /// The targets `products` reach, through target and same-package product dependencies.
    init(products: [String]) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("kb-dump-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // A scratch path of its own, so that the package's .build (and its lock) is not touched.
        let json = try Shell.require(
            "swift", ["package", "--scratch-path", scratch, "dump-package"], in: DocumentationTests.root.path)
        let start = try #require(json.firstIndex(of: "{"))
        let package = try #require(
            try JSONSerialization.jsonObject(with: Data(json[start...].utf8)) as? [String: Any])
        let allTargets = (package["targets"] as? [[String: Any]]) ?? []
        let allProducts = (package["products"] as? [[String: Any]]) ?? []
        let byName = Dictionary(allTargets.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let productTargets = Dictionary(
            allProducts.map { ($0["name"] as? String ?? "", $0["targets"] as? [String] ?? []) },
            uniquingKeysWith: { a, _ in a })
        var queue = products.flatMap { productTargets[$0] ?? [$0] }
        var seen: Set<String> = []
        var reached: [[String: Any]] = []
        while let name = queue.popLast() {
            guard seen.insert(name).inserted else { continue }
            guard let target = byName[name] else {
                queue.append(contentsOf: productTargets[name] ?? [])
                continue
            }
            reached.append(target)
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                for kind in ["byName", "target", "product"] {
                    if let names = dependency[kind] as? [Any], let first = names.first as? String {
                        queue.append(first)
                    }
                }
            }
        }
        targets = reached
        pkgConfigNames = reached.compactMap { $0["pkgConfig"] as? String }
    }

    private func directory(_ target: [String: Any]) -> String {
        let name = target["name"] as? String ?? ""
        return DocumentationTests.root.path + "/" + ((target["path"] as? String) ?? "Sources/\(name)")
    }

    /// The files outside the repository and the toolchain that building the targets reads: headers
    /// (as the toolchain's clang preprocesses each C file and each module map's header), the
    /// libraries linked (`lib*.so`), and the pkg-config files.
    func filesRead() throws -> [String] {
        var sources: [String] = []
        var includes: [String] = []
        var libraries: [String] = []
        for target in targets {
            let type = target["type"] as? String ?? ""
            let directory = directory(target)
            if type == "system" {
                includes.append(directory)
                let map = try String(contentsOfFile: directory + "/module.modulemap", encoding: .utf8)
                for match in map.matches(of: /header "([^"]+)"/) { sources.append(directory + "/" + match.output.1) }
                for match in map.matches(of: /link "([^"]+)"/) { libraries.append(String(match.output.1)) }
            } else if type == "regular" || type == "executable" {
                if FileManager.default.fileExists(atPath: directory + "/include") {
                    includes.append(directory + "/include")
                }
                let files = FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []
                sources += files.filter { $0.hasSuffix(".c") || $0.hasSuffix(".h") }.sorted().map {
                    directory + "/" + $0
                }
            }
            for setting in target["settings"] as? [[String: Any]] ?? [] where setting["tool"] as? String == "linker" {
                if let kind = setting["kind"] as? [String: Any], let library = kind["linkedLibrary"] as? [String: Any],
                    let name = library["_0"] as? String
                {
                    libraries.append(name)
                }
            }
        }
        let toolchain = try Self.toolchainRoot()
        let clang = toolchain + "/usr/bin/clang"
        var flags = includes.map { "-I" + $0 }
        var files: Set<String> = []
        if !pkgConfigNames.isEmpty {
            let cflags = try Shell.require("pkg-config", ["--cflags"] + pkgConfigNames)
            flags += cflags.split(whereSeparator: \.isWhitespace).map(String.init)
            let paths = try Shell.require("pkg-config", ["--path"] + pkgConfigNames)
            files.formUnion(paths.split(separator: "\n").map(String.init))
        }
        // One preprocessing run over every file, as C: each file's make rule lists what it read.
        let rules = try Shell.require(clang, ["-M", "-x", "c"] + flags + sources, timeout: 300)
        for word in rules.replacingOccurrences(of: "\\\n", with: " ").split(whereSeparator: \.isWhitespace) {
            guard word.hasPrefix("/"), !word.hasSuffix(":") else { continue }
            files.insert(URL(fileURLWithPath: String(word)).standardized.path)
        }
        for library in Set(libraries) {
            let path = try Shell.require(clang, ["-print-file-name=lib\(library).so"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard path.hasPrefix("/") else {
                throw TestFailure("the linker finds no lib\(library).so (needed by the demo's products)")
            }
            files.insert(URL(fileURLWithPath: path).standardized.path)
        }
        let repository = DocumentationTests.root.path + "/"
        return files.filter { !$0.hasPrefix(repository) && !$0.hasPrefix(toolchain + "/") }.sorted()
    }

    /// The toolchain's root: the folder whose `usr/bin` holds the `swift` on PATH.
    static func toolchainRoot() throws -> String {
        let swift = try #require(Programs.find("swift"), "no swift on PATH")
        let resolved = URL(fileURLWithPath: swift).resolvingSymlinksInPath()
        return resolved.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}

/// What dpkg knows of the installed packages.
enum Debian {
    /// The packages that own each of `files` (a file may be shared, as a directory is); a file no
    /// package owns has no entry. `/usr/lib` and `/lib` are tried both ways (merged /usr).
    static func owners(of files: [String]) throws -> [String: [String]] {
        var owners: [String: [String]] = [:]
        for file in files {
            for candidate in [file, file.hasPrefix("/usr/") ? String(file.dropFirst(4)) : "/usr" + file] {
                let (status, output) = try Shell.run("dpkg-query", ["-S", candidate])
                guard status == 0 else { continue }
                let line = output.split(separator: "\n").first { !$0.hasPrefix("diversion") } ?? ""
                let names = line.split(separator: ":", maxSplits: 1).first ?? ""
                owners[file] = names.split(separator: ",").map {
                    String($0.trimmingCharacters(in: .whitespaces).split(separator: ":").first ?? "")
                }
                break
            }
        }
        return owners
    }

    /// `packages` with every installed package they depend on (Depends and Pre-Depends, the first
    /// of each set of alternatives, as apt chooses; virtual packages through what provides them),
    /// and the essential packages every Debian system has.
    static func dependencyClosure(of packages: [String]) throws -> Set<String> {
        let table = try Shell.require(
            "dpkg-query", ["-W", "-f", "${Package}\t${Essential}\t${Provides}\t${Depends}, ${Pre-Depends}\n"])
        var depends: [String: [String]] = [:]
        var providers: [String: [String]] = [:]
        var essential: [String] = []
        func name(_ item: Substring) -> String {
            String(
                item.trimmingCharacters(in: .whitespaces).split(separator: " ").first?.split(separator: ":").first ?? ""
            )
        }
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4 else { continue }
            let package = String(fields[0])
            if fields[1] == "yes" { essential.append(package) }
            for provided in fields[2].split(separator: ",") { providers[name(provided), default: []].append(package) }
            depends[package] = fields[3].split(separator: ",").compactMap { group in
                group.split(separator: "|").first.map(name)
            }.filter { !$0.isEmpty }
        }
        var closure: Set<String> = []
        var queue = packages + essential
        while let package = queue.popLast() {
            guard closure.insert(package).inserted else { continue }
            if let next = depends[package] {
                queue.append(contentsOf: next)
            } else {
                queue.append(contentsOf: providers[package] ?? [])
            }
        }
        return closure
    }
}
