/// The session service's names on the bus, its errors and its interface, whose XML is
/// Interfaces/org.keyboardadapter.Watcher2.xml (RepositoryTests keep the text here identical).
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

    /// The introspection data served by `Introspect`.
    static let introspection = #"""
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!--
          KeyboardAdapter's session service: one watcher of the on-screen keyboards for every app of the
          session, served by kbwatch in its serve mode under the name org.keyboardadapter.Watcher at
          /org/keyboardadapter/Watcher. A service started without a display server it can reach (the
          bus's activation environment names none) answers every call with
          org.keyboardadapter.Watcher2.Error.NoDisplay, the reason and the fix, and leaves a second
          after the last call.

          An update (Event, SubscriberEvent) is an a{sv} with these keys; a key is left out where its
          value is unknown:
            event s                 willShow, didShow, willHide, didHide, willChangeFrame, didChangeFrame
            time x                  when it was produced, in microseconds since 1970-01-01 UTC
            show u                  the number of the keyboard's show it belongs to (Event and Progress)
            backend s               x11, wayland, kwin, gnome
            keyboard a{sv}          id s, name s, kind s (keyboard, inputMethodPanel), pid u
            output a{sv}            name s, frame (iiii)
            begin_frame (iiii)      where the transition began: x, y, width, height, in the screen's pixels
            end_frame (iiii)        where it ends (see end_frame_predicted)
            visible b               whether the keyboard is visible once the transition completes
            docked b                whether it spans an edge of its output
            docked_edge s           that edge: top, bottom, left, right
            local b                 whether the window it came up for is the subscriber's (SubscriberEvent only)
            animation_duration d    seconds
            animation_curve s       none, linear, easeIn, easeOut, easeInOut, unknown
            layout a{sv}            name s, code s
            geometry s              how the frames were obtained: reported, derived, derivedUpperBound, unknown
            end_frame_predicted b   whether end_frame is a predicted destination
            timing s                where the duration comes from: measured, predicted, unknown
            window_frame (iiii)     the keyboard's own window, where it differs from end_frame (frame in a
                                    progress frame and a visible keyboard): on X11 without the title bar
                                    and borders a window manager frames it with, which the frames include
          A progress frame (Progress) has the keys of an update but event, visible, timing, local and
          the animation's, and: transition s (the will event under way), frame (iiii) (where the keyboard
          is now), elapsed d (seconds since the transition's first frame), fraction d (0 to 1, when the
          destination is known). A visible keyboard (Keyboards, GetState) has keyboard, output, frame,
          docked, docked_edge, local, layout, geometry and window_frame.

          A subscriber's local: local is judged once per show of a keyboard, by the window that had
          the focus when it showed. When a show starts, a subscriber whose verdict differs from the
          last one it was sent gets Verdict (show u, verdict a{sv} with local b, left out when unknown)
          before the show's first Event: its verdict for that show and every later one, until the next
          Verdict. A Verdict for a show not after the last one replaces the verdicts from that show on.
          The local of an Event or Progress of show N is that of the last Verdict for a show up to N;
          an Event with no such Verdict was sent before the subscription. With local true, a verdict may
          also hold window (iiii): where the display server shows the subscriber's window that had the
          focus once the keyboard's slide ends, in the frames' pixels (the window's own frame, without a
          shadow drawn around it). GNOME Shell moves that window itself, up by its keyboard's height when
          the keyboard would cover the window's text cursor, and tells the app nothing: an app measures
          what the keyboard covers of its window there (its bar then needs no room when the window was
          moved out of the way), or asks with LeaveWindowsInPlace to be left where it is.

          Subscribe, Show and Hide wait while the bus says who the caller is (once per connection): at
          most 8 such calls of one connection, and 256 connections at once, wait; the next is refused
          with org.keyboardadapter.Watcher2.Error.LimitsExceeded. The service takes no Unix
          descriptors: the bus refuses a call that carries some (org.freedesktop.DBus.Error.NotSupported).
        -->
        <node>
          <interface name="org.keyboardadapter.Watcher2">
            <!-- This interface's version: 2. -->
            <property name="Version" type="u" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
            </property>
            <!-- The backend watching: x11, wayland, kwin, gnome. -->
            <property name="Backend" type="s" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
            </property>
            <!-- Whether a keyboard is visible. -->
            <property name="Visible" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <!-- The visible keyboards, without local. -->
            <property name="Keyboards" type="aa{sv}" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>

            <!--
              Subscribe: the caller gets Verdict signals, addressed to it alone, with local judged for it
              (and Progress is sent while a subscriber's options have "progress" true): by its own
              process (the bus says which; "caller" false leaves it out), by the app id of its Flatpak
              sandbox, and, outside any sandbox, by the ids in options that are its own (see
              docs/security.md): "pids" (au), "window_ids" (at, X11), "app_ids" (as), at most 64 of each.
              A caller whose sandbox is not known for certain (another sandbox, or one that cannot be
              established) is local for no window. Unknown options are ignored. After the reply come its
              Verdicts for the keyboards up now, then a willShow and a didShow of each as
              SubscriberEvent. Calling it again replaces the options, and its Verdicts follow again. At
              most 256 subscribers, and 32 of one client: one process outside any sandbox, one Flatpak
              app however many connections it has, or all callers of unknown sandbox together; the next
              gets org.keyboardadapter.Watcher2.Error.LimitsExceeded, whose message names the limit. A
              subscriber whose connection closes is forgotten.
            -->
            <method name="Subscribe">
              <arg name="options" type="a{sv}" direction="in"/>
            </method>
            <method name="Unsubscribe"/>

            <!-- The present: visible b, keyboards aa{sv} (local judged for the caller when it has
                 subscribed), services aa{sv} (name s, keyboard s, address s, status s: unknown, noBus,
                 notRunning, running; visible b, pid u, problem s), reserved aa{sv} (output a{sv}, edge s,
                 frame (iiii)). -->
            <method name="GetState">
              <arg name="state" type="a{sv}" direction="out"/>
            </method>

            <!--
              Show or hide the keyboard, through its own service or the display server, as kbwatch's
              show and hide modes; the reply comes once the keyboard accepted. Errors:
              org.keyboardadapter.Watcher2.Error.Unsupported, .NotVisible, .Failed, with the reason;
              .LimitsExceeded when 32 requests of the caller's client, or 256 in all, wait for the
              keyboard.
            -->
            <method name="Show"/>
            <method name="Hide"/>

            <!--
              For apps that make room for the keyboard themselves (Android's adjustResize rather than
              adjustPan): with true, the display server leaves the windows of the caller's own process
              (the one the bus names for its connection) where they are when a keyboard opens, instead of
              moving the focused one out of the keyboard's way (GNOME Shell does); false ends that. It holds
              until the caller's connection leaves the bus, and takes effect the next time the display
              server would move a window. Errors: org.freedesktop.DBus.Error.AccessDenied for a caller in a
              sandbox or whose sandbox is not known for certain; .Unsupported when the backend moves no
              windows (every backend but gnome); .LimitsExceeded beyond 256 connections.
            -->
            <method name="LeaveWindowsInPlace">
              <arg name="leave" type="b" direction="in"/>
            </method>

            <!-- Every event, to everyone listening, without local, with the number of its show. -->
            <signal name="Event">
              <arg name="update" type="a{sv}"/>
            </signal>
            <!-- Every progress frame, to everyone listening, while a subscriber asks for them. -->
            <signal name="Progress">
              <arg name="progress" type="a{sv}"/>
            </signal>
            <!-- To one subscriber: its local from a show on (see above). -->
            <signal name="Verdict">
              <arg name="show" type="u"/>
              <arg name="verdict" type="a{sv}"/>
            </signal>
            <!-- To one subscriber, on subscribing: the keyboards up then, local judged for it. -->
            <signal name="SubscriberEvent">
              <arg name="update" type="a{sv}"/>
            </signal>
          </interface>
        </node>
        """#
}
