@_exported import KeyboardAdapterCore
@_exported import KeyboardDismissal
