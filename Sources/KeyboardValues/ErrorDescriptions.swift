#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Every public error of the core explains itself where apps look: `localizedDescription` (through
// `LocalizedError`, which FoundationEssentials declares) gives the same line as `description`,
// instead of Foundation's "The operation could not be completed".

extension BackendFailure: LocalizedError {
    /// The same line as ``description``: `backend: reason`.
    public var errorDescription: String? { description }
}

extension KeyboardControlError: LocalizedError {
    /// The same line as ``description``.
    public var errorDescription: String? { description }
}

extension BackendSelectionError: LocalizedError {
    /// The same line as ``description``, naming every backend and why it cannot run.
    public var errorDescription: String? { description }
}
