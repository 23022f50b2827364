// An app sees the values it reads (geometry, identities, observations, errors) through the core.
// The backends' interface (the run loop, its sources, the sinks, clocks and a backend's run) is
// imported by the files that use it, not exported: code that builds or runs a backend imports
// `KeyboardBackendInterface` itself.
@_exported import KeyboardValues
