@_exported import KeyboardAdapterCore
