#!/usr/bin/python3
"""chat: a GTK 4 + libadwaita chat screen whose entry bar stays on the on-screen keyboard's top edge.

The keyboards come from libkeyboard-adapter (KeyboardAdapter.Watcher, which subscribes to the
session service `kbwatch --serve`, starting it when installed), and the part of the window they
cover from its GTK 4 companion (KeyboardAdapterGtk4.Coverage, on X11, and on GNOME, whose shell
slides the focused window up out of its keyboard's way and says where through the package's
extension: the bar then needs no room). Elsewhere on Wayland no client knows where its window is
(the companion says so): the window is taken to fill its monitor from the top, as a chat screen
does on a phone or tablet; on sway, Phosh and labwc a docked keyboard shrinks it instead, and the
bar needs no inset. While a keyboard slides, progress frames move the bar there. With --in-place
the app asks GNOME Shell to leave its window where it is (the header stays on screen) and lifts
its bar onto the keyboard itself.

Dragging the messages down past the bar pulls the bar down with the pointer; released past half
the keyboard's height, the keyboard is asked to hide, released earlier, the bar goes back.

    python3 Examples/gtk4/chat.py [--size WxH] [--in-place]

It prints `subscribed` and `service gone` as the service comes and goes, `willShow NAME` (and the
other events) as they come (those up already too, once subscribed), `window 0x...` or
`window wayland`, `content X,Y WxH` (its content on the screen) when that changes, `dismissal: hide`
or `dismissal: back`, and after each relayout `bar bottom Y inset N` (the bar's bottom edge on the
screen, the inset under it). Needs python3-gi, gir1.2-adw-1 and libkeyboard-adapter's typelibs.
"""
import ctypes
import os
import signal
import sys

import gi

gi.require_version("Adw", "1")
gi.require_version("KeyboardAdapter", "1")
gi.require_version("KeyboardAdapterGtk4", "1")
from gi.repository import Adw, Gdk, Gio, GLib, Gtk, KeyboardAdapter, KeyboardAdapterGtk4  # noqa: E402

# The bar's colour: a test finds the bar's bottom edge on screen by it, so nothing else is this blue.
STYLE = """
.chat-screen { background-color: #f4f6fa; }
.chat-bar { background-color: #3465a4; }
.chat-bubble { background-color: #ffffff; border-radius: 12px; padding: 8px 12px; }
"""
MESSAGES = [("Ana", "Are we still on for tonight?"), ("You", "Yes! Seven at the usual place."),
            ("Ana", "Great. I'll bring the maps."), ("You", "Type below: this bar stays above the keyboard.")]
EVENTS = {"will-show": "willShow", "did-show": "didShow", "will-hide": "willHide", "did-hide": "didHide",
          "will-change-frame": "willChangeFrame", "did-change-frame": "didChangeFrame"}


def say(text):
    print(text, flush=True)


def x_origin(xid, xlib=ctypes.CDLL("libX11.so.6")):
    """Where an X window is on the screen. The bar needs it only while a keyboard slides (the
    companion measures the end frame), the `content` and `bar bottom` lines always: GTK 4 keeps no
    position of its windows, the X server does (asked on a connection of this function's own)."""
    if not hasattr(x_origin, "display"):
        xlib.XOpenDisplay.restype = ctypes.c_void_p
        xlib.XDefaultRootWindow.argtypes, xlib.XDefaultRootWindow.restype = [ctypes.c_void_p], ctypes.c_ulong
        xlib.XTranslateCoordinates.argtypes = [ctypes.c_void_p] + [ctypes.c_ulong] * 2 + [ctypes.c_int] * 2 + [
            ctypes.c_void_p] * 3
        x_origin.display = xlib.XOpenDisplay(None)
    x, y, child = ctypes.c_int(), ctypes.c_int(), ctypes.c_ulong()
    xlib.XTranslateCoordinates(x_origin.display, xid, xlib.XDefaultRootWindow(x_origin.display), 0, 0,
                               ctypes.byref(x), ctypes.byref(y), ctypes.byref(child))
    return x.value, y.value


class ChatWindow(Adw.ApplicationWindow):
    def __init__(self, application, size, in_place):
        super().__init__(application=application, title="Chat", default_width=size[0], default_height=size[1])
        self.drag_inset = None  # while a drag holds the bar lower than the keyboard: its inset
        self.hiding = False  # a released drag asked for a hide that has not come yet
        self.slide = None  # a sliding keyboard's frame now: its begin frame, then its progress frames
        self.reported = self.frame = None
        layout = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, css_classes=["chat-screen"])
        layout.append(Adw.HeaderBar())
        self.messages = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin_top=12, margin_bottom=12,
                                margin_start=12, margin_end=12)
        for sender, text in MESSAGES:
            self.add_message(text, sender == "You")
        scroller = Gtk.ScrolledWindow(vexpand=True, child=self.messages)
        layout.append(scroller)
        self.bar = Gtk.Box(spacing=6, css_classes=["chat-bar"])
        self.entry = Gtk.Entry(placeholder_text="Message", hexpand=True, margin_top=6, margin_bottom=6,
                               margin_start=6)
        send = Gtk.Button(label="Send", margin_top=6, margin_bottom=6, margin_end=6)
        self.entry.connect("activate", self.send)
        send.connect("clicked", self.send)
        self.bar.append(self.entry)
        self.bar.append(send)
        layout.append(self.bar)
        self.set_content(layout)
        drag = Gtk.GestureDrag()
        drag.connect("drag-update", self.dragged)
        drag.connect("drag-end", self.released)
        scroller.add_controller(drag)

        self.watcher = KeyboardAdapter.Watcher(progress_frames=True, leave_in_place=in_place)
        self.coverage = KeyboardAdapterGtk4.Coverage.new(self.watcher, self)
        self.coverage.connect("notify::bottom-inset", self.measured)
        self.watcher.connect("notify::keyboard-rectangle", self.relayout)
        self.watcher.connect("notify::focus-window", self.moved)
        self.watcher.connect("notify::service-available", self.available)
        self.watcher.connect("progress", self.progress)
        for name, printed in EVENTS.items():
            self.watcher.connect(name, self.event, printed)
        self.connect("realize", lambda *_: self.get_frame_clock().connect("after-paint", self.painted))

    def add_message(self, text, mine):
        bubble = Gtk.Label(label=text, wrap=True, xalign=0, css_classes=["chat-bubble"],
                           halign=Gtk.Align.END if mine else Gtk.Align.START)
        self.messages.append(bubble)

    def send(self, *_):
        if self.entry.get_text().strip():
            self.add_message(self.entry.get_text().strip(), True)
            self.entry.set_text("")

    def available(self, watcher, _):
        # Gone, it forgets the keyboards (the bar drops back); subscribed again, it hears of those up.
        say("subscribed" if watcher.props.service_available else "service gone")

    def event(self, watcher, update, printed):
        say("%s %s" % (printed, update.props.keyboard_name))
        if printed.startswith("will") and update.props.animation_duration > 0:
            self.slide = update.props.begin_frame  # the bar stays until progress frames move it
        elif self.slide is not None:
            self.slide = update.props.end_frame  # until the companion has measured it (when idle)
        self.relayout()

    def measured(self, *_):
        if not self.watcher.props.animating:
            self.slide = None
        self.relayout()

    def moved(self, *_):
        self.queue_draw()  # the `content` line says where the display server shows it now

    def progress(self, watcher, frame):
        self.slide = frame.props.frame
        self.relayout()

    def origin(self):
        """The content's top-left corner on the screen; on Wayland where GNOME shows it, else its monitor's."""
        surface = self.get_surface()
        if hasattr(surface, "get_xid"):
            x, y = x_origin(surface.get_xid())
            dx, dy = self.get_surface_transform()  # the shadow and resize borders GTK draws around it
            return x + int(dx), y + int(dy)
        shown = self.watcher.props.focus_window
        if shown.width > 0:
            return shown.x, shown.y
        geometry = self.get_display().get_monitor_at_surface(surface).get_geometry()
        return geometry.x, geometry.y

    def inset(self):
        """What the keyboard covers of the window's bottom."""
        if self.coverage.props.known and self.slide is None:
            return self.coverage.props.bottom_inset
        if self.frame is None:
            return 0
        # Where the companion knows no window (Wayland), and while a keyboard slides (the companion
        # follows keyboard-rectangle, the end frame): the frame against the window on the screen.
        keyboard = self.slide or self.watcher.props.keyboard_rectangle
        left, top, right, bottom = self.frame
        k_top, k_bottom = max(keyboard.y, top), min(keyboard.y + keyboard.height, bottom)
        if keyboard.x >= right or keyboard.x + keyboard.width <= left or k_top >= k_bottom:
            return 0
        # Kept free at the bottom when it reaches the bottom edge or is nearer it than the top.
        return bottom - k_top if k_bottom >= bottom or bottom - k_top <= k_bottom - top else 0

    def painted(self, *_):
        left, top = self.origin()
        frame = (left, top, left + self.get_width(), top + self.get_height())
        if frame != self.frame:
            say("content %d,%d %dx%d" % (left, top, frame[2] - left, frame[3] - top))
            self.frame = frame
            self.relayout()  # sway shrank it for a docked keyboard, or it moved
            return
        found, bounds = self.bar.compute_bounds(self)
        if found:
            bar_bottom = top + int(round(bounds.origin.y + bounds.size.height))
            if (bar_bottom, frame[3]) != self.reported:
                self.reported = (bar_bottom, frame[3])
                say("bar bottom %d inset %d" % (bar_bottom, frame[3] - bar_bottom))

    def relayout(self, *_):
        if self.frame is None:
            return
        inset = self.inset()
        if inset == 0:
            self.drag_inset, self.hiding = None, False
        self.bar.set_margin_bottom(inset if self.drag_inset is None else min(self.drag_inset, inset))

    def dragged(self, gesture, _x, offset_y):
        inset = self.inset()
        if inset == 0 or self.hiding:
            return
        _, _, start_y = gesture.get_start_point()
        _, y = gesture.get_widget().translate_coordinates(self, 0, start_y + offset_y)
        under = max(0, self.get_height() - int(y))  # the inset that puts the bar's bottom at the pointer
        self.drag_inset = under if under < inset else None  # it follows once below where it rests
        self.relayout()

    def released(self, *_):
        if self.drag_inset is None or self.hiding:
            return
        if self.inset() - self.drag_inset > self.inset() / 2:
            say("dismissal: hide")
            self.hiding = True
            self.watcher.hide_async(None, self.hidden)
        else:
            say("dismissal: back")
            self.drag_inset = None
            self.relayout()

    def hidden(self, watcher, result):
        try:
            watcher.hide_finish(result)
        except GLib.Error as error:  # nothing could hide it: the bar goes back above it
            say("hide: %s" % error.message)
            self.drag_inset, self.hiding = None, False
            self.relayout()


def start(application, size, in_place):
    provider = Gtk.CssProvider()
    provider.load_from_string(STYLE) if hasattr(provider, "load_from_string") else provider.load_from_data(
        STYLE.encode())
    Gtk.StyleContext.add_provider_for_display(Gdk.Display.get_default(), provider,
                                              Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    window = ChatWindow(application, size, in_place)
    window.present()
    surface = window.get_surface()
    if hasattr(surface, "get_xid"):
        window.watcher.set_window_ids([surface.get_xid()])  # its own window is the app's, for `local`
        say("window 0x%x" % surface.get_xid())
    else:
        say("window wayland")


def main():
    arguments, size = sys.argv[1:], (800, 600)
    in_place = "--in-place" in arguments
    arguments = [each for each in arguments if each != "--in-place"]
    if len(arguments) == 2 and arguments[0] == "--size":
        size = tuple(int(n) for n in arguments[1].split("x"))
    elif arguments:
        sys.exit("usage: chat.py [--size WxH] [--in-place]")
    # NON_UNIQUE: every run is its own app, also beside another one on the same bus.
    app = Adw.Application(application_id="org.keyboardadapter.Chat", flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.connect("activate", lambda application: start(application, size, in_place))
    for number in (signal.SIGINT, signal.SIGTERM):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: app.quit() or False)
    return app.run([sys.argv[0]])


if __name__ == "__main__":
    os.environ.setdefault("NO_AT_BRIDGE", "1")
    sys.exit(main())
