#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The X11 backend's public error explains itself where apps look, as the core's errors do.

extension RulesFileError: LocalizedError {
    /// The same line as ``description``.
    public var errorDescription: String? { description }
}
