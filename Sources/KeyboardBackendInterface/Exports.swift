// The values a backend reports and an app reads (geometry, identities, observations, errors) are
// a module of their own below this one, which a backend sees through it.
@_exported import KeyboardValues
