import Foundation
import PackagePlugin

/// Hands a target the text of the files it carries (the companions kbwatch installs or loads into
/// a compositor, and the interfaces it serves) as string constants, read from the files themselves
/// at build time: each file is kept once, in Companions/ or Interfaces/, and kbwatch stays a
/// single binary that needs none of them beside it.
@main
struct EmbeddedTexts: BuildToolPlugin {
    /// The texts each target gets: `Type.constant` (an extension of the target's own type) and
    /// the file it is read from, a path from the package's folder.
    static let texts: [String: [(constant: String, file: String)]] = [
        "kbwatch": [
            ("GnomeExtensionInstaller.legacyHead", "Companions/gnome-shell/legacy/extension.js"),
            ("GnomeExtensionInstaller.legacyMetadata", "Companions/gnome-shell/legacy/metadata.json"),
            ("GnomeExtensionInstaller.modulesHead", "Companions/gnome-shell/modules/extension.js"),
            ("GnomeExtensionInstaller.modulesMetadata", "Companions/gnome-shell/modules/metadata.json"),
            ("GnomeExtensionInstaller.body", "Companions/gnome-shell/keyboard-export.js"),
            ("GnomeExtensionInstaller.interfaceXML", "Interfaces/org.keyboardadapter.GnomeShell1.xml"),
        ],
        "KeyboardServices": [("KWinCompanion.scriptTemplate", "Companions/kwin/keyboard-adapter.js")],
        "KeyboardSessionService": [
            ("SessionServiceNames.introspection", "Interfaces/org.keyboardadapter.Watcher2.xml")
        ],
    ]

    struct UnknownTarget: Error, CustomStringConvertible {
        var name: String
        var description: String { "EmbeddedTexts names no file for the target \(name)" }
    }

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let texts = Self.texts[target.name] else { throw UnknownTarget(name: target.name) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTexts.swift")
        let files = texts.map { context.package.directoryURL.appending(path: $0.file) }
        return [
            .buildCommand(
                displayName: "Embedding \(texts.map(\.file).joined(separator: ", ")) in \(target.name)",
                executable: try context.tool(named: "embedtexts").url,
                arguments: [output.path] + zip(texts, files).map { "\($0.constant)=\($1.path)" },
                inputFiles: files, outputFiles: [output])
        ]
    }
}
