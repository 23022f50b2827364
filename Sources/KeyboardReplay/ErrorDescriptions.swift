#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The replay's public errors explain themselves where apps look, as the core's do.

extension ObservationCodec.LineError: LocalizedError {
    /// The same line as ``description``: `line N: reason`.
    public var errorDescription: String? { description }
}

extension RecordingFailure: LocalizedError {
    /// The same line as ``description``: `cannot write the recording PATH: REASON`.
    public var errorDescription: String? { description }
}
