#!/usr/bin/python3
"""watch-client.py: what a KaWatcher hears, from Python (PyGObject), one line each: the lines
of watch-client.c (see there).

    watch-client.py [--window-id HEX] [--progress]
"""
import signal
import sys

import gi

gi.require_version("KeyboardAdapter", "1")
from gi.repository import GLib, KeyboardAdapter  # noqa: E402

window, progress = 0, False
args = sys.argv[1:]
while args:
    if args[0] == "--window-id" and len(args) > 1:
        window, args = int(args[1], 16), args[2:]
    elif args[0] == "--progress":
        progress, args = True, args[1:]
    else:
        sys.exit("usage: watch-client.py [--window-id HEX] [--progress]")


def say(line):
    print(line, flush=True)


def error_line(what, error):
    if error.domain == GLib.quark_to_string(KeyboardAdapter.error_quark()):
        return f"{what} {KeyboardAdapter.Error(error.code).value_nick}: {error.message}"
    return f"{what} {error.domain} {error.code}: {error.message}"


def rect(r):
    return f"{r.x},{r.y} {r.width}x{r.height}" if r else "?"


def answered(what, finish):
    def done(watcher, result):
        try:
            finish(result)
            say(f"{what} ok")
        except GLib.Error as error:
            say(error_line(f"{what} error", error))
    return done


watcher = KeyboardAdapter.Watcher()
if window:
    watcher.set_window_ids([window])
asked_show = False


def on_event(watcher, update, name):
    say(f"{name} {rect(update.props.end_frame)} local={update.props.local.value_nick} "
        f"name={update.props.keyboard_name}")


def on_notify(watcher, pspec):
    global asked_show
    if pspec.name == "service-available":
        say(f"available {str(watcher.props.service_available).lower()}")
        if watcher.props.service_available and not asked_show:
            asked_show = True
            watcher.show_async(None, answered("show", watcher.show_finish))
    elif pspec.name == "error" and watcher.props.error:
        say(error_line("error", watcher.props.error))
    elif pspec.name == "animating":
        say(f"animating {str(watcher.props.animating).lower()}")
    elif pspec.name == "visible":
        say(f"visible {str(watcher.props.visible).lower()} {rect(watcher.props.keyboard_rectangle)}")


for name in ["will-show", "did-show", "will-hide", "did-hide", "will-change-frame", "did-change-frame"]:
    watcher.connect(name, on_event, name)
watcher.connect("notify", on_notify)
if progress:
    watcher.props.progress_frames = True
    watcher.connect("progress", lambda watcher, frame: say(
        f"progress {rect(frame.props.frame)} local={frame.props.local.value_nick}"))


def on_sigusr1():
    watcher.hide_async(None, answered("hide", watcher.hide_finish))
    return GLib.SOURCE_CONTINUE


GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, on_sigusr1)
GLib.MainLoop().run()
