/// The session service's names on the bus, its errors and its interface, whose XML is
/// Interfaces/org.keyboardadapter.Watcher1.xml (RepositoryTests keep the text here identical).
public enum SessionServiceNames {
    /// The well-known name the service owns on the session bus.
    public static let busName = "org.keyboardadapter.Watcher"
    /// The object the interface is on.
    public static let objectPath = "/org/keyboardadapter/Watcher"
    /// The interface, version 1.
    public static let interfaceName = "org.keyboardadapter.Watcher1"
    /// The interface's version, its `Version` property.
    public static let version: UInt32 = 1
    /// The prefix of the interface's error names (`….LimitsExceeded`, `….Unsupported`, ...).
    public static let errorPrefix = "org.keyboardadapter.Watcher1.Error."

    /// The introspection data served by `Introspect`.
    static let introspection = #"""
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!--
          KeyboardAdapter's session service: one watcher of the on-screen keyboards for every app of the
          session, served by kbwatch in its serve mode under the name org.keyboardadapter.Watcher at
          /org/keyboardadapter/Watcher. Every JSON text is a kbwatch JSON Lines object, schema 1 (see the
          README): the same fields, in the same order, as kbwatch prints in its json mode.
        -->
        <node>
          <interface name="org.keyboardadapter.Watcher1">
            <!-- This interface's version: 1. -->
            <property name="Version" type="u" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
            </property>
            <!-- The backend watching: x11, wayland, kwin. -->
            <property name="Backend" type="s" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
            </property>
            <!-- Whether a keyboard is visible. -->
            <property name="Visible" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <!-- The visible keyboards: the JSON array "keyboards" of kbwatch's state in json, "local" null. -->
            <property name="Keyboards" type="s" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>

            <!--
              Subscribe: the caller gets SubscriberEvent signals (and SubscriberProgress ones when
              options has "progress" true), addressed to it alone, with "local" judged for it: by its
              process (the bus says which; "caller" false leaves it out) and by the ids in options:
              "pids" (au), "window_ids" (at, X11), "app_ids" (as), at most 64 of each. Unknown options
              are ignored. Calling it again replaces the options. At most 256 subscribers; the 257th
              gets org.keyboardadapter.Watcher1.Error.LimitsExceeded. A subscriber whose connection
              closes is forgotten.
            -->
            <method name="Subscribe">
              <arg name="options" type="a{sv}" direction="in"/>
            </method>
            <method name="Unsubscribe"/>

            <!-- The present: the object kbwatch prints for its state in json, "local" judged for the caller
                 when it has subscribed, else null. -->
            <method name="GetState">
              <arg name="state" type="s" direction="out"/>
            </method>

            <!--
              Show or hide the keyboard, through its own service or the display server, as kbwatch's
              show and hide modes; the reply comes once the keyboard accepted. Errors:
              org.keyboardadapter.Watcher1.Error.Unsupported, .NotVisible, .Failed, with the reason.
            -->
            <method name="Show"/>
            <method name="Hide"/>

            <!-- Every event, to everyone listening, "local" null. -->
            <signal name="Event">
              <arg name="update" type="s"/>
            </signal>
            <!-- Every event, to one subscriber, "local" judged for it. -->
            <signal name="SubscriberEvent">
              <arg name="update" type="s"/>
            </signal>
            <!-- Every progress frame, to one subscriber that asked for them. -->
            <signal name="SubscriberProgress">
              <arg name="progress" type="s"/>
            </signal>
          </interface>
        </node>
        """#
}
