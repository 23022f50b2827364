#!/usr/bin/python3
"""chat: a GTK 4 + libadwaita chat screen whose entry bar stays above the on-screen keyboard.

It takes the keyboards from KeyboardAdapter's session service (`kbwatch --serve`, the name
org.keyboardadapter.Watcher on the session bus, interface Interfaces/org.keyboardadapter.Watcher2.xml)
through GDBus, in GTK's own main loop: no thread, no polling. Subscribe (which starts the service
when it is installed and not running) asks for progress frames too, so while a keyboard slides the
bar slides with it, frame by frame; a will event with no slide to follow moves the bar at once.

Dragging the messages down past the bar pulls the bar down with the pointer (or finger);
released past half the keyboard's height, the keyboard is asked to hide (the service's Hide), and
released earlier, the bar goes back above the keyboard.

Where the window is: on X11, asked of the X server (GTK 4 no longer says); on Wayland no client
knows where its window is, so the window is taken to fill its monitor from the top, as a chat
screen does on a phone or tablet (maximized, tiled or fullscreen). On sway, Phosh and labwc a
docked keyboard shrinks such a window instead, and the bar then needs no inset at all.

    python3 Examples/gtk4/chat.py [--size WxH]

It prints `subscribed` after each Subscribe, `EVENT NAME` for each keyboard event,
`visible NAME` for each keyboard up when it subscribed, `service gone` when the service ends,
`window 0x...` (X11) or `window wayland` once shown, `content X,Y WxH` (where its content is on
the screen, inside any client-side shadow) once laid out and whenever it changes, `dismissal: hide` or `dismissal: back` when a
drag is released over the keyboard, and after each relayout `bar bottom Y inset N` (Y: the bar's
bottom edge on the screen; N: the inset under it). SIGINT and SIGTERM end it. Needs python3-gi,
gir1.2-gtk-4.0 and gir1.2-adw-1.
"""
import argparse
import ctypes
import os
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("Adw", "1")
from gi.repository import Adw, Gdk, Gio, GLib, Gtk  # noqa: E402

try:
    gi.require_version("GdkX11", "4.0")
    from gi.repository import GdkX11  # noqa: E402
except (ValueError, ImportError):
    GdkX11 = None  # a GTK built without X11: Wayland only

# The session service's name, object and interface.
SERVICE = "org.keyboardadapter.Watcher"
SERVICE_PATH = "/org/keyboardadapter/Watcher"
SERVICE_INTERFACE = "org.keyboardadapter.Watcher2"

# The bar's colour: a test finds the bar's bottom edge on screen by it, so nothing else is this blue.
STYLE = b"""
.chat-screen { background-color: #f4f6fa; }
.chat-bar { background-color: #3465a4; }
.chat-bubble { background-color: #ffffff; border-radius: 12px; padding: 8px 12px; }
"""

MESSAGES = [
    ("Ana", "Are we still on for tonight?"),
    ("You", "Yes! Seven at the usual place."),
    ("Ana", "Great. I'll bring the maps."),
    ("You", "Type below: this bar stays above the on-screen keyboard."),
]


def say(text):
    """One line on standard output, flushed at once (a test reads it while the app runs)."""
    print(text, flush=True)


class XOrigin:
    """Where an X window is on the screen, asked of the X server on a connection of its own.

    GTK 4 keeps no public position of a toplevel, and a window manager may place it anywhere; the
    X server knows. The window asked about is this app's own, which exists while it is shown, so
    the request cannot fail with BadWindow (and GTK's own X error handler is left alone).
    """

    def __init__(self):
        self.xlib = ctypes.CDLL("libX11.so.6")
        self.xlib.XOpenDisplay.restype = ctypes.c_void_p
        self.xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.xlib.XDefaultRootWindow.restype = ctypes.c_ulong
        self.xlib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.xlib.XTranslateCoordinates.argtypes = [
            ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
            ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_ulong)]
        self.display = self.xlib.XOpenDisplay(None)
        self.root = self.xlib.XDefaultRootWindow(self.display) if self.display else 0

    def origin(self, window):
        """The window's top-left corner on the screen, or None without a connection."""
        if not self.display:
            return None
        x, y, child = ctypes.c_int(), ctypes.c_int(), ctypes.c_ulong()
        if not self.xlib.XTranslateCoordinates(
                self.display, window, self.root, 0, 0, ctypes.byref(x), ctypes.byref(y), ctypes.byref(child)):
            return None
        return x.value, y.value


def clipped(frame, output):
    """A frame (x, y, w, h) as (left, top, right, bottom), clipped to its output's (x, y, w, h)."""
    left, top = frame[0], frame[1]
    right, bottom = left + frame[2], top + frame[3]
    if output:
        left, top = max(left, output[0]), max(top, output[1])
        right = min(right, output[0] + output[2])
        bottom = min(bottom, output[1] + output[3])
    return left, top, right, bottom


def bottom_inset(keyboards, window):
    """How much of the window's bottom the keyboards cover; window is (left, top, right, bottom).

    A covered part is kept free at the bottom when it reaches the window's bottom edge or is
    nearer the bottom than the top (as KeyboardAdapter's WindowGeometry.insets does).
    """
    w_left, w_top, w_right, w_bottom = window
    inset = 0
    for left, top, right, bottom in keyboards:
        c_left, c_top = max(left, w_left), max(top, w_top)
        c_right, c_bottom = min(right, w_right), min(bottom, w_bottom)
        if c_left >= c_right or c_top >= c_bottom:
            continue
        if c_bottom >= w_bottom or w_bottom - c_top <= c_bottom - w_top:
            inset = max(inset, w_bottom - c_top)
    return inset


class Keyboards:
    """The keyboards up now, from the session service; calls `changed` after every change.

    The signals are subscribed to before Subscribe is called, so none sent after it is missed;
    GetState then gives the keyboards already up. When the service ends, its keyboards are
    forgotten, and a second later Subscribe starts a new one.
    """

    def __init__(self, options, changed):
        self.options = options
        self.changed = changed
        self.frames = {}  # id -> (left, top, right, bottom): where each keyboard up is now
        self.sliding = set()  # ids of keyboards whose slide the progress frames are following
        self.subscribed = False  # whether the service running now has this app's Subscribe
        self.subscribing = False  # a Subscribe is on its way
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.bus.set_exit_on_close(False)
        self.bus.connect("closed", self.closed)
        for member, handler in (("Event", self.event), ("Progress", self.progress)):
            self.bus.signal_subscribe(
                SERVICE, SERVICE_INTERFACE, member, SERVICE_PATH, None, Gio.DBusSignalFlags.NONE, handler)
        self.bus.signal_subscribe(
            "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus", SERVICE,
            Gio.DBusSignalFlags.NONE, self.owner_changed)
        self.subscribe()

    def call(self, method, arguments=None, reply_type=None, done=None):
        # Flags NONE: the bus may start the service for this call.
        self.bus.call(
            SERVICE, SERVICE_PATH, SERVICE_INTERFACE, method, arguments, reply_type, Gio.DBusCallFlags.NONE, 25000,
            None, self.answered, (method, done))

    def answered(self, bus, result, request):
        method, done = request
        try:
            reply = bus.call_finish(result)
        except GLib.Error as error:
            # Not installed, or it failed: the bar stays at the bottom until a service appears
            # (owner_changed subscribes then).
            say("kbwatch service: %s: %s" % (method, error.message))
            self.subscribing = self.subscribing and method != "Subscribe"
            if done and method == "Hide":
                done(None)
            return
        if done:
            done(reply)

    def subscribe(self):
        if self.subscribing or self.subscribed:
            return False
        self.subscribing = True
        self.call("Subscribe", GLib.Variant("(a{sv})", (self.options,)), None, self.subscribed_now)
        return False  # also a one-shot timeout

    def subscribed_now(self, reply):
        self.subscribing, self.subscribed = False, True
        say("subscribed")
        self.call("GetState", None, GLib.VariantType("(a{sv})"), self.state)

    def state(self, reply):
        self.frames = {}
        for entry in reply.unpack()[0]["keyboards"]:
            keyboard = entry["keyboard"]
            say("visible %s" % keyboard["name"])
            if keyboard["kind"] == "keyboard" and "frame" in entry:
                self.frames[keyboard["id"]] = clipped(entry["frame"], entry.get("output", {}).get("frame"))
        self.changed()

    def event(self, bus, sender, path, interface, member, parameters):
        if parameters.get_type_string() != "(a{sv})":
            return
        update = parameters.unpack()[0]
        keyboard = update["keyboard"]
        say("%s %s" % (update["event"], keyboard["name"]))
        if keyboard["kind"] != "keyboard":
            return  # input-method panels sit beside the caret; the bar need not dodge them
        identity, end = keyboard["id"], update.get("end_frame")
        output = update.get("output", {}).get("frame")
        if update["event"].startswith("will") and update.get("animation_duration", 0) > 0:
            # A slide: its progress frames move the bar; the did event puts it where the slide ended.
            self.sliding.add(identity)
            return
        self.sliding.discard(identity)
        if update["visible"] and end is not None:
            self.frames[identity] = clipped(end, output)
        else:
            self.frames.pop(identity, None)
        self.changed()

    def progress(self, bus, sender, path, interface, member, parameters):
        if parameters.get_type_string() != "(a{sv})":
            return
        frame = parameters.unpack()[0]
        keyboard = frame["keyboard"]
        if keyboard["id"] not in self.sliding or "frame" not in frame:
            return
        self.frames[keyboard["id"]] = clipped(frame["frame"], frame.get("output", {}).get("frame"))
        self.changed()

    def owner_changed(self, bus, sender, path, interface, member, parameters):
        name, old_owner, new_owner = parameters.unpack()
        if not old_owner:
            self.subscribe()  # started by another app, after this one's Subscribe failed
            return
        self.subscribed = False
        say("service gone")
        self.frames, self.sliding = {}, set()
        self.changed()
        GLib.timeout_add_seconds(1, self.subscribe)

    def hide(self, done):
        """Asks the service to hide the keyboard; `done(ok)` once it answered."""
        self.call("Hide", None, None, lambda reply: done(reply is not None))

    def closed(self, bus, remote_peer_vanished, error):
        say("session bus closed")
        app.quit()

    def stop(self):
        if self.bus.is_closed():
            return
        try:
            # Leaving is polite, never a reason to start the service.
            self.bus.call_sync(
                SERVICE, SERVICE_PATH, SERVICE_INTERFACE, "Unsubscribe", None, None,
                Gio.DBusCallFlags.NO_AUTO_START, 1000, None)
        except GLib.Error:
            pass


class ChatWindow(Adw.ApplicationWindow):
    """A header, the messages, and the entry bar at the bottom, lifted by the covered inset."""

    def __init__(self, application, size):
        super().__init__(application=application, title="Chat")
        self.set_default_size(*size)
        self.keyboards = None
        self.x_origin = None
        self.inset = 0  # what the keyboards cover of the window's bottom
        self.drag_inset = None  # while a drag holds the bar lower than that: its inset
        self.hiding = False  # a released drag asked for a hide that has not come yet
        self.last_report = None
        self.last_frame = None  # the window's frame when it was last laid out
        self.said_frame = None  # the window's frame when it was last printed

        layout = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        layout.add_css_class("chat-screen")
        layout.append(Adw.HeaderBar())
        messages = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
        for side in ("top", "bottom", "start", "end"):
            getattr(messages, "set_margin_" + side)(12)
        for sender, text in MESSAGES:
            bubble = Gtk.Label(label=text, wrap=True, xalign=0)
            bubble.add_css_class("chat-bubble")
            bubble.set_halign(Gtk.Align.END if sender == "You" else Gtk.Align.START)
            messages.append(bubble)
        scroller = Gtk.ScrolledWindow(vexpand=True, child=messages)
        layout.append(scroller)
        # The bar's own allocation ends at its bottom edge (its children's spacing is their margins).
        self.bar = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=6)
        self.bar.add_css_class("chat-bar")
        self.entry = Gtk.Entry(placeholder_text="Message", hexpand=True)
        send = Gtk.Button(label="Send")
        send.connect("clicked", self.send, messages)
        self.entry.connect("activate", self.send, messages)
        for child in (self.entry, send):
            for side in ("top", "bottom", "start", "end"):
                getattr(child, "set_margin_" + side)(6)
            self.bar.append(child)
        layout.append(self.bar)
        self.set_content(layout)

        drag = Gtk.GestureDrag()
        drag.connect("drag-update", self.dragged)
        drag.connect("drag-end", self.released)
        scroller.add_controller(drag)
        self.connect("realize", self.realized)

    def realized(self, *_):
        # After every painted frame the layout is final: report where the bar ended up, or lay out
        # again when the window changed size (sway shrinking it for a docked keyboard).
        self.get_frame_clock().connect("after-paint", lambda *_: self.painted())

    def painted(self):
        frame = self.frame()
        if frame is not None and frame != self.said_frame:
            self.said_frame = frame
            left, top, right, bottom = frame
            say("content %d,%d %dx%d" % (left, top, right - left, bottom - top))
        if frame != self.last_frame:
            self.relayout()
        else:
            self.report()

    def send(self, _widget, messages):
        text = self.entry.get_text().strip()
        if text:
            bubble = Gtk.Label(label=text, wrap=True, xalign=0, halign=Gtk.Align.END)
            bubble.add_css_class("chat-bubble")
            messages.append(bubble)
            self.entry.set_text("")

    def origin(self):
        """Where the window's content starts on the screen: from the X server, or its monitor's."""
        surface = self.get_surface()
        if surface is None:
            return None
        if self.x_origin is not None:
            origin = self.x_origin.origin(surface.get_xid())
            if origin is None:
                return None
            # The X window holds the resize borders (and any shadow) GTK draws around the content.
            shift_x, shift_y = self.get_surface_transform()
            return origin[0] + int(shift_x), origin[1] + int(shift_y)
        # A Wayland compositor places the window's geometry, which leaves out those borders.
        monitor = self.get_display().get_monitor_at_surface(surface)
        if monitor is None:
            return None
        geometry = monitor.get_geometry()
        return geometry.x, geometry.y

    def frame(self):
        """The window's content in screen coordinates, as (left, top, right, bottom)."""
        origin = self.origin()
        if origin is None:
            return None
        left, top = origin
        return left, top, left + self.get_width(), top + self.get_height()

    def relayout(self):
        frame = self.frame()
        if frame is None or self.keyboards is None:
            return
        self.last_frame = frame
        self.inset = bottom_inset(self.keyboards.frames.values(), frame)
        if self.inset == 0:
            self.drag_inset, self.hiding = None, False
        lifted = self.inset if self.drag_inset is None else min(self.drag_inset, self.inset)
        self.bar.set_margin_bottom(lifted)
        self.bar.queue_resize()

    def pointer_inset(self, gesture, offset_y):
        """The inset that puts the bar's bottom edge at the pointer."""
        _, _, start_y = gesture.get_start_point()
        _, y = gesture.get_widget().translate_coordinates(self, 0, start_y + offset_y)
        return max(0, self.get_height() - int(y))

    def dragged(self, gesture, offset_x, offset_y):
        if self.inset == 0 or self.hiding:
            return
        under = self.pointer_inset(gesture, offset_y)
        # The bar follows only once the pointer is below where it rests.
        self.drag_inset = under if under < self.inset else None
        self.relayout()

    def released(self, gesture, offset_x, offset_y):
        if self.drag_inset is None or self.hiding:
            return
        if self.inset - self.drag_inset > self.inset / 2:
            say("dismissal: hide")
            self.hiding = True
            self.keyboards.hide(self.hide_answered)
        else:
            say("dismissal: back")
            self.drag_inset = None
            self.relayout()

    def hide_answered(self, ok):
        if not ok:
            # Not hidden (nothing can hide it here): the bar goes back above the keyboard.
            self.drag_inset, self.hiding = None, False
            self.relayout()

    def report(self):
        """Prints where the bar's bottom edge is on screen, once per change, once laid out."""
        frame = self.frame()
        found, bounds = self.bar.compute_bounds(self)
        if frame is None or not found:
            return
        bottom = frame[1] + int(round(bounds.origin.y + bounds.size.height))
        report = (bottom, frame[3] - bottom)
        if report != self.last_report:
            self.last_report = report
            say("bar bottom %d inset %d" % report)


def start(application, size):
    provider = Gtk.CssProvider()
    provider.load_from_data(STYLE)
    Gtk.StyleContext.add_provider_for_display(
        Gdk.Display.get_default(), provider, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    window = ChatWindow(application, size)
    window.present()
    options = {"progress": GLib.Variant("b", True)}
    surface = window.get_surface()
    if GdkX11 is not None and isinstance(surface, GdkX11.X11Surface):
        window.x_origin = XOrigin()
        # Its own window counts as the app's when the service judges `local`.
        options["window_ids"] = GLib.Variant("at", [surface.get_xid()])
        say("window 0x%x" % surface.get_xid())
    else:
        say("window wayland")
    window.keyboards = Keyboards(options, window.relayout)
    application.window = window


def main():
    global app
    parser = argparse.ArgumentParser(description="A chat screen whose entry bar stays above the keyboard.")
    parser.add_argument("--size", default="800x600", help="WxH of the window (default 800x600)")
    arguments = parser.parse_args()
    size = tuple(int(value) for value in arguments.size.split("x"))

    # NON_UNIQUE: every run is its own app, also beside another one on the same bus.
    app = Adw.Application(application_id="org.keyboardadapter.Chat", flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.window = None
    app.connect("activate", lambda application: start(application, size))
    for number in (signal.SIGINT, signal.SIGTERM):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: app.quit() or False)
    status = app.run([sys.argv[0]])
    window = app.window
    if window is not None and window.keyboards is not None:
        window.keyboards.stop()
    return status


app = None

if __name__ == "__main__":
    os.environ.setdefault("NO_AT_BRIDGE", "1")
    sys.exit(main())
