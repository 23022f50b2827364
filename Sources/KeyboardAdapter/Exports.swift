@_exported import KeyboardAdapterCore
@_exported import KeyboardDismissal
@_exported import KeyboardReplay
