import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

@testable import X11Adapter

/// Keyboard rules, struts and docking: pure logic, no server.
@Suite("X11 rules and docking")
struct RulesTests {
    @Test("built-in rules recognise each keyboard by what its windows set, and nothing else")
    func builtIn() {
        let rules = KeyboardRules.builtIn
        let onboard = X11WindowDescription(
            instance: "onboard", windowClass: "Onboard", title: "Onboard",
            windowTypes: ["_NET_WM_WINDOW_TYPE_NORMAL"], acceptsInput: false, onscreenKeyboard: 1)
        #expect(rules.match(onboard)?.name == "onboard")
        var palette = onboard
        palette.overrideRedirect = true
        palette.title = "onboard"
        #expect(rules.match(palette) == nil, "onboard's icon palette is not a keyboard")
        var leader = onboard
        leader.onscreenKeyboard = nil
        #expect(rules.match(leader) == nil)
        let matchbox = X11WindowDescription(title: "Keyboard", acceptsInput: false)
        #expect(rules.match(matchbox)?.name == "matchbox-keyboard")
        #expect(
            rules.match(X11WindowDescription(instance: "x", windowClass: "Y", title: "Keyboard", acceptsInput: false))
                == nil)
        #expect(
            rules.match(
                X11WindowDescription(instance: "xvkbd", windowClass: "XVkbd", title: "xvkbd - Virtual Keyboard"))?.name
                == "xvkbd")
        let caribou = X11WindowDescription(instance: "antler-keyboard", windowClass: "Main.py", overrideRedirect: true)
        #expect(rules.match(caribou)?.name == "caribou")
        var caribouToplevel = caribou
        caribouToplevel.overrideRedirect = false
        #expect(rules.match(caribouToplevel) == nil, "caribou's never-mapped toplevel is not the keyboard")
        #expect(rules.match(X11WindowDescription(instance: "xterm", windowClass: "XTerm", title: "Keyboard")) == nil)
    }

    @Test("built-in rules recognise the fcitx5 and ibus panels as input-method panels, not their other windows")
    func inputMethodPanels() {
        let rules = KeyboardRules.builtIn
        let fcitx = X11WindowDescription(
            instance: "fcitx", windowClass: "fcitx", title: "Fcitx5 Input Window",
            windowTypes: ["_NET_WM_WINDOW_TYPE_POPUP_MENU"], overrideRedirect: true)
        #expect(rules.match(fcitx)?.name == "fcitx5" && rules.match(fcitx)?.kind == .inputMethodPanel)
        var fcitxToplevel = fcitx
        fcitxToplevel.overrideRedirect = false
        #expect(rules.match(fcitxToplevel) == nil)
        let emoji = X11WindowDescription(
            instance: "ibus-extension-gtk3", windowClass: "Ibus-extension-gtk3", overrideRedirect: true)
        #expect(rules.match(emoji)?.name == "ibus-emoji" && rules.match(emoji)?.kind == .inputMethodPanel)
        let candidates = X11WindowDescription(
            instance: "ibus-ui-gtk3", windowClass: "Ibus-ui-gtk3", overrideRedirect: true)
        #expect(rules.match(candidates)?.name == "ibus" && rules.match(candidates)?.kind == .inputMethodPanel)
        #expect(rules.match(X11WindowDescription(instance: "ibus-ui-gtk3", windowClass: "Ibus-ui-gtk3")) == nil)
    }

    @Test("the rules file: user rules come first, a broken or unconditional file is reported and ignored")
    func rulesFile() throws {
        let home = NSTemporaryDirectory() + "rules-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["XDG_CONFIG_HOME": home]
        let url = KeyboardRules.configFileURL(environment: environment)
        #expect(url.path == home + "/keyboard-adapter/rules.json")
        #expect(
            KeyboardRules.configFileURL(environment: ["HOME": "/h"]).path == "/h/.config/keyboard-adapter/rules.json")
        #expect(KeyboardRules.load(environment: environment).rules == .builtIn)

        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try
            #"{ "rules": [ { "name": "florence", "class": "Florence" }, { "name": "panel", "kind": "inputMethodPanel", "windowType": "POPUP_MENU", "overrideRedirect": true } ] }"#
            .write(to: url, atomically: true, encoding: .utf8)
        let loaded = KeyboardRules.load(environment: environment)
        #expect(loaded.problem == nil)
        #expect(loaded.rules.rules.count == KeyboardRules.builtIn.rules.count + 2)
        #expect(
            loaded.rules.match(X11WindowDescription(instance: "florence", windowClass: "Florence"))?.name == "florence")
        let panel = loaded.rules.match(
            X11WindowDescription(windowTypes: ["_NET_WM_WINDOW_TYPE_POPUP_MENU"], overrideRedirect: true))
        #expect(panel?.name == "panel" && panel?.kind == .inputMethodPanel)
        let backend = X11Backend(displayName: ":none", environment: environment)
        #expect(backend.rules.rules.first?.name == "florence" && backend.rulesProblem == nil)

        try #"{ "rules": [ { "name": "everything" } ] }"#.write(to: url, atomically: true, encoding: .utf8)
        let unconditional = KeyboardRules.load(environment: environment)
        #expect(unconditional.rules == .builtIn)
        #expect(unconditional.problem?.contains("no condition") == true)

        try "{ rules: nope".write(to: url, atomically: true, encoding: .utf8)
        let broken = KeyboardRules.load(environment: environment)
        #expect(broken.rules == .builtIn)
        #expect(broken.problem?.hasPrefix(url.path) == true)
    }

    @Test("struts are validated against the screen; matchbox-keyboard's 64-bit garbage is no strut")
    func struts() {
        // onboard docked at the bottom of 1280x800, with the struts it sets there.
        #expect(
            Strut(partial: [0, 0, 0, 205, 0, 0, 0, 0, 0, 0, 0, 1279], plain: [0, 0, 0, 205], width: 1280, height: 800)
                == Strut(edge: .bottom, size: 205))
        #expect(
            Strut(partial: [0, 0, 205, 0, 0, 0, 0, 0, 0, 1279, 0, 0], plain: nil, width: 1280, height: 800)
                == Strut(edge: .top, size: 205))
        #expect(
            Strut(partial: nil, plain: [0, 0, 0, 205], width: 1280, height: 800) == Strut(edge: .bottom, size: 205))
        // matchbox-keyboard under openbox: an int[12] read back as long[12].
        #expect(
            Strut(
                partial: [0, 480, 0, 0, 0, 0, 10, 3_580_663_808, 0, 3_384_089_664, 0, 0], plain: nil,
                width: 1280, height: 800) == nil)
        #expect(Strut(partial: [0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 1279], plain: nil, width: 1280, height: 800) == nil)
        #expect(
            Strut(partial: [0, 0, 0, 205, 0, 0, 0, 0, 0, 0, 1279, 0], plain: nil, width: 1280, height: 800) == nil,
            "end before start")
        #expect(
            Strut(partial: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], plain: [0, 0, 0, 0], width: 1280, height: 800) == nil)
        #expect(Strut(partial: [1, 2, 3], plain: nil, width: 1280, height: 800) == nil)
    }

    @Test("docking: DOCK type or a strut says docked; else the frame must touch an edge and span it")
    func docking() {
        let screen = Rect(x: 0, y: 0, width: 1280, height: 800)
        let bottom = Rect(x: 0, y: 595, width: 1280, height: 205)
        #expect(
            DockingVerdict.judge(isDockType: false, strut: nil, frame: bottom, output: screen)
                == DockingVerdict(isDocked: true, edge: .bottom))
        #expect(
            DockingVerdict.judge(
                isDockType: false, strut: nil, frame: Rect(x: 0, y: 0, width: 1278, height: 320), output: screen)
                == DockingVerdict(isDocked: false, edge: nil), "matchbox under openbox: framed, not spanning")
        #expect(
            DockingVerdict.judge(
                isDockType: true, strut: nil, frame: Rect(x: 0, y: 810, width: 1280, height: 205), output: screen)
                == DockingVerdict(isDocked: true, edge: .bottom), "sliding in below the screen")
        #expect(
            DockingVerdict.judge(
                isDockType: true, strut: nil, frame: Rect(x: 290, y: 595, width: 700, height: 205), output: screen)
                == DockingVerdict(isDocked: true, edge: .bottom), "DOCK, not expanded")
        #expect(
            DockingVerdict.judge(
                isDockType: false, strut: Strut(edge: .top, size: 205),
                frame: Rect(x: 0, y: 0, width: 1280, height: 205), output: screen)
                == DockingVerdict(isDocked: true, edge: .top))
        #expect(
            DockingVerdict.judge(
                isDockType: false, strut: nil, frame: Rect(x: 100, y: 50, width: 700, height: 205), output: screen)
                == DockingVerdict(isDocked: false, edge: nil))
    }

    @Test("monitors: a frame belongs to the monitor it overlaps most, an off-screen one to the monitor it lies along")
    func monitors() {
        let left = Output(name: "LEFT", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
        let right = Output(name: "RIGHT", frame: Rect(x: 1280, y: 0, width: 1920, height: 1080))
        let layout = MonitorLayout(monitors: [left, right], screen: Rect(x: 0, y: 0, width: 3200, height: 1200))
        #expect(layout.output(for: Rect(x: 100, y: 100, width: 300, height: 200)) == left)
        #expect(
            layout.output(for: Rect(x: 600, y: 600, width: 1920, height: 200)) == right, "1320 of 1920 on the right")
        #expect(layout.output(for: Rect(x: 1300, y: 1100, width: 1920, height: 200)) == right, "below the right one")
        #expect(
            layout.output(for: Rect(x: 0, y: 810, width: 1280, height: 205)) == left, "sliding in below the left one")
        let single = MonitorLayout(monitors: [], screen: Rect(x: 0, y: 0, width: 1280, height: 800))
        #expect(single.outputs == [Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800))])
    }
}
