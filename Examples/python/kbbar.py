#!/usr/bin/env python3
"""kbbar: a GTK 3 window whose entry bar stays above the on-screen keyboard.

It reads `kbwatch --json` from a subprocess, without blocking, in GLib's main loop: the pipe is a
unix descriptor source (GLib.io_add_watch), and each complete line is one event of kbwatch's JSON
Lines, schema 1 (schema/kbwatch-1.schema.json). From every keyboard's endFrame, clipped to its
output, it computes how much of its own window's bottom is covered, and pads the bar up by that
much. A will event already names where the keyboard is going, so the bar moves as the keyboard
starts to; a hide gives the space back.

With --service it starts no kbwatch: it takes the keyboard from the session service (`kbwatch
--serve`) through libkeyboard-adapter's Watcher, which subscribes (the bus starts the service when
it is installed), follows the service's restarts and keeps the keyboard's rectangle.

    python3 Examples/python/kbbar.py [--kbwatch PATH] [--position X,Y] [--size WxH] [-- KBWATCH-ARGS]
    python3 Examples/python/kbbar.py --service [--position X,Y] [--size WxH]

After each relayout it prints `bar bottom Y inset N` (Y: the bar's bottom edge in screen
coordinates; N: the covered inset), and at start `window 0x...` (its X window id). SIGINT and
SIGTERM end it and the kbwatch it started. Needs python3-gi and gir1.2-gtk-3.0 (and for --service
gir1.2-keyboardadapter-1).
"""
import argparse
import fcntl
import json
import os
import signal
import subprocess
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkX11", "3.0")
from gi.repository import Gdk, GdkX11, GLib, Gtk  # noqa: E402,F401 (GdkX11 gives windows their X id)

def say(text):
    """One line on standard output, flushed at once (a test reads it while the app runs)."""
    print(text, flush=True)


def clipped(frame, output):
    """The keyboard frame (x, y, w, h) as (left, top, right, bottom), clipped to its output's frame
    (x, y, w, h) when known."""
    left, top = frame[0], frame[1]
    right, bottom = left + frame[2], top + frame[3]
    if output:
        left, top = max(left, output[0]), max(top, output[1])
        right = min(right, output[0] + output[2])
        bottom = min(bottom, output[1] + output[3])
    return left, top, right, bottom


def json_frame(frame):
    """A kbwatch JSON frame ({"x", "y", "width", "height"}) as (x, y, w, h); None stays None."""
    return frame and (frame["x"], frame["y"], frame["width"], frame["height"])


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
            continue  # covers nothing of this window (or lies on another output)
        if c_bottom >= w_bottom or w_bottom - c_top <= c_bottom - w_top:
            inset = max(inset, w_bottom - c_top)
    return inset


class Feed:
    """The keyboards that are up, from kbwatch's events; calls `changed` after each event."""

    def __init__(self, changed):
        self.changed = changed
        self.keyboards = {}  # id -> (left, top, right, bottom), for the keyboards that are up
        self.failed = False  # the app then exits 1

    def handle(self, event, keyboard, visible, frame, output):
        """One event: its name, the keyboard (id, name, kind), whether it is visible once done,
        its end frame and its output's frame (x, y, w, h; None when unknown)."""
        say("%s %s" % (event, keyboard["name"]))
        if keyboard["kind"] != "keyboard":
            return  # input-method panels sit beside the caret; the bar need not dodge them
        if visible and frame is not None:
            self.keyboards[keyboard["id"]] = clipped(frame, output)
        else:
            # Hidden, or up at an unknown place (null frames): nothing to measure.
            self.keyboards.pop(keyboard["id"], None)
        self.changed()

    def stop(self):
        pass


class KeyboardFeed(Feed):
    """kbwatch --json in a subprocess, read in GLib's main loop."""

    def __init__(self, command, changed):
        super().__init__(changed)
        self.pending = b""
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        descriptor = self.process.stdout.fileno()
        flags = fcntl.fcntl(descriptor, fcntl.F_GETFL)
        fcntl.fcntl(descriptor, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        GLib.io_add_watch(descriptor, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self.readable)

    def readable(self, descriptor, condition):
        try:
            chunk = os.read(descriptor, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            say("kbwatch ended with status %s" % self.process.wait())
            Gtk.main_quit()
            return False
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            event = json.loads(line)
            if event.get("schema") == 1 and event.get("event") != "progress":
                output = event["output"]
                self.handle(
                    event["event"], event["keyboard"], event["visible"], json_frame(event["endFrame"]),
                    json_frame(output))
        return True

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class ServiceFeed(Feed):
    """The session service through libkeyboard-adapter (gir1.2-keyboardadapter-1): its Watcher
    subscribes (the bus starts the service when installed), subscribes again after the service's
    restart, forgetting its keyboards meanwhile, and keeps the keyboard's rectangle up to date."""

    def __init__(self, window_id, changed):
        super().__init__(changed)
        gi.require_version("KeyboardAdapter", "1")
        from gi.repository import KeyboardAdapter
        self.watcher = KeyboardAdapter.Watcher()
        self.watcher.set_window_ids([window_id])  # its own window is the app's, for `local`
        self.watcher.connect("notify::service-available", lambda watcher, _: say(
            "subscribed" if watcher.props.service_available else "service gone"))
        self.watcher.connect("notify::error", lambda watcher, _: watcher.props.error and say(
            "kbwatch service: %s" % watcher.props.error.message))
        self.watcher.connect("notify::keyboard-rectangle", self.moved)
        for name in ("will-show", "did-show", "will-hide", "did-hide", "will-change-frame", "did-change-frame"):
            event = "".join(word.capitalize() if i else word for i, word in enumerate(name.split("-")))
            self.watcher.connect(name, lambda _, update, event: say("%s %s" % (event, update.props.keyboard_name)),
                                 event)

    def moved(self, watcher, _):
        frame = watcher.props.keyboard_rectangle
        up = watcher.props.visible and frame.width > 0
        self.keyboards = {"keyboard": clipped((frame.x, frame.y, frame.width, frame.height), None)} if up else {}
        self.changed()


class BarWindow(Gtk.Window):
    """Content above, an entry bar at the bottom, padded up by the covered inset."""

    def __init__(self, position, size):
        super().__init__(title="kbbar")
        self.set_default_size(*size)
        self.set_resizable(False)
        self.move(*position)
        self.inset = 0
        self.last_report = None
        self.layout_pending = False  # a new inset given to GTK, not laid out yet
        self.feed = None
        layout = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        content = Gtk.Label(label="Type below: the bar stays above the on-screen keyboard.")
        layout.pack_start(content, True, True, 0)
        # The bar's own allocation reaches its bottom edge (the spacing is the children's margins),
        # so what it reports is exactly where the bar ends.
        self.bar = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=6)
        for child, expand in ((Gtk.Entry(placeholder_text="Message"), True), (Gtk.Button(label="Send"), False)):
            for side in ("top", "bottom", "start", "end"):
                getattr(child, "set_margin_" + side)(6)
            self.bar.pack_start(child, expand, expand, 0)
        layout.pack_end(self.bar, False, False, 0)
        self.add(layout)
        self.bar.connect("size-allocate", self.allocated)
        self.connect("configure-event", lambda *_: GLib.idle_add(self.relayout) and False)
        self.connect("destroy", Gtk.main_quit)

    def frame(self):
        """The window's client area in screen coordinates, as (left, top, right, bottom)."""
        gdk_window = self.get_window()
        if gdk_window is None:
            return None
        origin = gdk_window.get_origin()
        x, y = origin[-2], origin[-1]  # (x, y) or (result, x, y), by PyGObject version
        return x, y, x + gdk_window.get_width(), y + gdk_window.get_height()

    def relayout(self):
        frame = self.frame()
        if frame is None or self.feed is None:
            return False
        inset = bottom_inset(self.feed.keyboards.values(), frame)
        if inset != self.inset:
            # The bar reports once GTK has laid it out again (size-allocate).
            self.inset = inset
            self.layout_pending = True
            self.bar.set_margin_bottom(inset)
        else:
            # Nothing to lay out; the window may have moved, so say where the bar is now.
            GLib.idle_add(self.report)
        return False

    def allocated(self, *_):
        self.layout_pending = False
        GLib.idle_add(self.report)

    def report(self):
        """Prints where the bar's bottom edge is on screen, once per change, when laid out."""
        frame = self.frame()
        if frame is None or self.layout_pending:
            return False
        allocation = self.bar.get_allocation()
        position = self.bar.translate_coordinates(self, 0, 0)
        if position is None:
            return False
        bottom = frame[1] + position[1] + allocation.height
        report = (bottom, self.inset)
        if report != self.last_report:
            self.last_report = report
            say("bar bottom %d inset %d" % report)
        return False


def main():
    parser = argparse.ArgumentParser(description="An entry bar kept above the on-screen keyboard.")
    parser.add_argument("--kbwatch", default=os.environ.get("KBWATCH", "kbwatch"), help="the kbwatch program")
    parser.add_argument("--service", action="store_true", help="use the session service, not a kbwatch child")
    parser.add_argument("--position", default="240,40", help="X,Y of the window (default 240,40)")
    parser.add_argument("--size", default="800x600", help="WxH of the window (default 800x600)")
    parser.add_argument("kbwatch_arguments", nargs="*", help="more kbwatch arguments, after --")
    arguments = parser.parse_args()
    if arguments.service and arguments.kbwatch_arguments:
        parser.error("--service runs no kbwatch to give arguments to")
    position = tuple(int(value) for value in arguments.position.split(","))
    size = tuple(int(value) for value in arguments.size.split("x"))

    window = BarWindow(position, size)
    window.show_all()
    say("window 0x%x" % window.get_window().get_xid())
    if arguments.service:
        window.feed = ServiceFeed(window.get_window().get_xid(), window.relayout)
    else:
        window.feed = KeyboardFeed([arguments.kbwatch, "--json"] + arguments.kbwatch_arguments, window.relayout)
    for number in (signal.SIGINT, signal.SIGTERM):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: Gtk.main_quit() or False)
    window.relayout()
    try:
        Gtk.main()
    finally:
        window.feed.stop()
    return 1 if window.feed.failed else 0


if __name__ == "__main__":
    Gdk.set_allowed_backends("x11")  # kbwatch on X11 reports X screen coordinates
    sys.exit(main())
