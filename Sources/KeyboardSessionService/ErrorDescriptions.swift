#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The session service's errors explain themselves where apps look (`localizedDescription`), as
// the core's do.

extension SessionServiceError: LocalizedError {
    /// The same line as ``description``.
    package var errorDescription: String? { description }
}

extension SessionServiceClient.Failure: LocalizedError {
    /// The same line as ``description``.
    package var errorDescription: String? { description }
}
