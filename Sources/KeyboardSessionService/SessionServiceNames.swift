/// The session service's names on the bus, its errors and its interface, whose XML is
/// Interfaces/org.keyboardadapter.Watcher2.xml (`introspection`, read from that file at build time
/// by the EmbeddedTexts plugin).
package enum SessionServiceNames {
    /// The well-known name the service owns on the session bus.
    package static let busName = "org.keyboardadapter.Watcher"
    /// The object the interface is on.
    package static let objectPath = "/org/keyboardadapter/Watcher"
    /// The interface, version 2: updates as D-Bus values.
    package static let interfaceName = "org.keyboardadapter.Watcher2"
    /// The interface's version, its `Version` property.
    package static let version: UInt32 = 2
    /// The prefix of the interface's error names (`….LimitsExceeded`, `….Unsupported`, ...).
    package static let errorPrefix = "org.keyboardadapter.Watcher2.Error."
}
