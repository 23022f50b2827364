#!/usr/bin/python3
"""coverage-client.py: a GTK 4 window measured by KaGtkCoverage (libkeyboard-adapter-gtk4),
one line each (GObjectLibraryTests reads them):

    window 0xXID                         the window's X11 id, once it is mapped
    content DX,DY WxH                    where its widgets are laid out in its surface (the
                                         surface transform) and their size, when they change
    covered known=K X,Y WxH inset N      the coverage's properties, when they change

    coverage-client.py [--size WxH]
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("GdkX11", "4.0")
gi.require_version("KeyboardAdapter", "1")
gi.require_version("KeyboardAdapterGtk4", "1")
from gi.repository import GdkX11, GLib, Gtk, KeyboardAdapter, KeyboardAdapterGtk4  # noqa: E402

width, height = 800, 600
if len(sys.argv) == 3 and sys.argv[1] == "--size":
    width, height = (int(n) for n in sys.argv[2].split("x"))
elif len(sys.argv) != 1:
    sys.exit("usage: coverage-client.py [--size WxH]")


def say(line):
    print(line, flush=True)


Gtk.init()
window = Gtk.Window(title="covered app")
window.set_default_size(width, height)
window.set_child(Gtk.Label(label="covered app"))
watcher = KeyboardAdapter.Watcher()
coverage = KeyboardAdapterGtk4.Coverage.new(watcher, window)
last = [None, None]  # the last content and covered lines, each printed once


def report(*_):
    covered = coverage.props.covered
    line = (f"covered known={str(coverage.props.known).lower()} {covered.x},{covered.y} "
            f"{covered.width}x{covered.height} inset {coverage.props.bottom_inset}")
    if line != last[1]:
        last[1] = line
        say(line)


def content(*_):
    dx, dy = window.get_surface_transform()
    line = f"content {int(dx)},{int(dy)} {window.get_width()}x{window.get_height()}"
    if line != last[0]:
        last[0] = line
        say(line)


def mapped(*_):
    surface = window.get_surface()
    if isinstance(surface, GdkX11.X11Surface):
        say(f"window 0x{surface.get_xid():x}")
    surface.connect("layout", content)
    content()


for name in ["known", "covered", "bottom-inset"]:
    coverage.connect(f"notify::{name}", report)
window.connect("map", mapped)
window.present()
GLib.MainLoop().run()
