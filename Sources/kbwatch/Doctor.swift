import Glibc
import KbwatchOutput
import KeyboardAdapter
import KeyboardBackendInterface

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `kbwatch --doctor` and `--list-backends`: what this session offers, and why a backend can or
/// cannot run. Every line that holds text from elsewhere is escaped.
enum Doctor {
    static func listBackends(_ registry: BackendRegistry) -> [String] {
        registry.all.map { registration in
            let availability = registration.make().availability()
            return "\(registration.name): \(label(availability)): \(TerminalText.escape(availability.explanation))"
        } + ["replay: available with --replay FILE"]
    }

    static func report(_ registry: BackendRegistry, environment: [String: String], chosen: String?) -> [String] {
        var lines = ["session:"]
        for name in [
            "DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS",
            BackendRegistry.environmentVariable,
        ] {
            lines.append("  \(name)=\(environment[name].map(TerminalText.escape) ?? "(unset)")")
        }
        lines.append("backends:")
        for registration in registry.all {
            let backend = registration.make()
            let availability = backend.availability()
            lines.append("  \(registration.name): \(label(availability))")
            if availability.isAvailable {
                // Backends may name themselves at the start of each line; the heading already does.
                let prefix = registration.name + ": "
                lines += backend.diagnose().map { line in
                    "    " + TerminalText.escape(line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line)
                }
            } else {
                lines.append("    " + TerminalText.escape(availability.explanation))
            }
            // Where its display server answers, what is set up here for it (GNOME: the
            // extension's folder, its settings).
            if !isUnreachable(availability) {
                lines += registration.setupLines(environment).map { "    " + TerminalText.escape($0) }
            }
            let (can, cannot) = describe(backend.capabilities)
            lines.append("    can see: " + (can.isEmpty ? "nothing" : can.joined(separator: ", ")))
            if !cannot.isEmpty { lines.append("    cannot see: " + cannot.joined(separator: ", ")) }
            let asks = [
                backend.capabilities.contains(.hidesKeyboards) ? "hide" : nil,
                backend.capabilities.contains(.showsKeyboards) ? "show (through a keyboard service)" : nil,
            ].compactMap { $0 }
            lines.append("    can ask keyboards to: " + (asks.isEmpty ? "nothing" : asks.joined(separator: ", ")))
        }
        do {
            let backend = try registry.select(name: chosen, environment: environment)
            lines.append("kbwatch would use: \(backend.name)")
        } catch {
            lines.append("kbwatch cannot watch here: " + TerminalText.escape(error.description))
        }
        return lines
    }

    private static func isUnreachable(_ availability: BackendAvailability) -> Bool {
        if case .unreachable = availability { return true }
        return false
    }

    private static func label(_ availability: BackendAvailability) -> String {
        switch availability {
        case .available: "available"
        case .unreachable: "no display server"
        case .unavailable: "unavailable"
        }
    }

    private static let capabilityNames: [(BackendCapabilities, String)] = [
        (.reportsFrames, "keyboard frames"), (.reportsFloating, "floating keyboards"), (.reportsDocking, "docking"),
        (.reportsOwnership, "whether a keyboard is for this app"), (.reportsLayout, "the input layout"),
        (.reportsOutputs, "outputs"), (.reportsInputMethodPanels, "input-method panels"),
    ]

    private static func describe(_ capabilities: BackendCapabilities) -> ([String], [String]) {
        (
            capabilityNames.filter { capabilities.contains($0.0) }.map(\.1),
            capabilityNames.filter { !capabilities.contains($0.0) }.map(\.1)
        )
    }
}
