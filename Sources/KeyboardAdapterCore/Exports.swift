// What a backend is and what it reports (the run loop, the backend and service protocols, the
// observations, the registry) is a module of its own, below the core: a backend depends on it
// alone. An app that imports the core sees it too, as before.
@_exported import KeyboardBackendInterface
