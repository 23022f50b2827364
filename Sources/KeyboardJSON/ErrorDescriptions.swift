#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// A parser failure explains itself where apps look, as the core's errors do.

extension JSONParser.Failure: LocalizedError {
    /// The same line as ``description``: the reason.
    public var errorDescription: String? { description }
}
