import Foundation
import KeyboardAdapterCore
import ScreenCapture
import TestSupport
import Testing

/// The GTK 4 chat screen (`Examples/gtk4/chat.py`, on libkeyboard-adapter) on a real headless
/// GNOME Shell with its own keyboard, opened by a tap in the chat's entry. GNOME Shell slides the
/// focused window up by its keyboard's height when the keyboard would cover the window's text
/// cursor, and tells the app nothing: the bar must still end exactly on the keyboard's top edge on
/// screen, with the shell's slide allowed for (the window moved up, the bar at its bottom) and with
/// the app asking to be left in place (the window where it was, its header on screen, the bar
/// lifted onto the keyboard), in screenshots the shell takes.
@Suite("GTK 4 example on GNOME Shell: chat", .serialized)
struct GnomeChatTests {
    /// Where the screenshots are kept (the docs' pictures are copies of them).
    static let shots = SchemaValidator.repository.appendingPathComponent(".build/gnome-shots").path

    /// GNOME Shell 50 (forky) asks for its keyboard on a tap (GTK 4.24); 48 (Debian 13) on a
    /// click (GTK 4.18).
    @Test(
        "the shell's slide allowed for, then the app left in place: the bar ends on the keyboard's top edge on screen, the header shown when left in place",
        arguments: [Stack.forky, .debian13])
    func chat(stack: Stack) throws {
        guard try Programs.ready(["gdbus"]), try Userland.ready(stack, HeadlessGnomeShell.programs),
            try GTK4ExampleTests.ready()
        else { return }
        let gnome = try HeadlessGnomeShell(stack: stack)
        defer { gnome.stop() }
        try gnome.warmUp()
        if stack != .debian13 { try gnome.makeTouchscreen() }
        let files = try Self.reachableFiles(gnome)
        try FileManager.default.createDirectory(atPath: Self.shots, withIntermediateDirectories: true)

        let slid = try Self.openKeyboard(in: gnome, files: files, inPlace: false)
        // The shell moved the window up by the keyboard's height: nothing of it is covered.
        #expect(slid.window.y == 32 - slid.keyboard.height, "the window shown at \(slid.window)")
        #expect(
            slid.barBottom == slid.keyboard.y, "the bar ends at \(slid.barBottom), the keyboard at \(slid.keyboard)")
        #expect(slid.reported.contains("bar bottom \(slid.keyboard.y) inset 0"), "\(slid.reported)")

        // Not maximized this time: the shell decides whether to move a window when the text
        // cursor's rectangle changes (its focus tracker ignores one equal to the last), so the
        // entry must not sit where it sat in the first run.
        let left = try Self.openKeyboard(in: gnome, files: files, inPlace: true, at: Self.lower)
        #expect(left.window.y == Self.lower.y, "left in place: the window at \(left.window)")
        #expect(
            left.barBottom == left.keyboard.y, "the bar ends at \(left.barBottom), the keyboard at \(left.keyboard)")
        #expect(
            left.reported.contains("bar bottom \(left.keyboard.y) inset \(left.keyboard.height)"), "\(left.reported)")
        #expect(left.headerShown, "the header bar is on screen below the shell's top bar")
        #expect(!slid.headerShown, "slid up, the header bar is off screen")
    }

    /// What one run of the chat showed with the keyboard up.
    struct Shown {
        /// The keyboard actor's frame.
        var keyboard: Rect
        /// The chat window's frame as the shell shows it (its actor's place).
        var window: Rect
        /// Where the lowest run of the bar's colour ends in the screenshot.
        var barBottom: Int
        /// Whether the chat's header bar, with its title, is on screen below the shell's top bar.
        var headerShown: Bool
        /// What the chat printed.
        var reported: String
    }

    /// Runs the session service and the chat (with `--in-place` when `inPlace`) together in the
    /// userland, maximizes the chat (or puts it at `place`), taps its entry, and measures once the keyboard and the window
    /// have settled; the keyboard is hidden and both end before it returns.
    static func openKeyboard(in gnome: HeadlessGnomeShell, files: ReachableFiles, inPlace: Bool, at place: Rect? = nil)
        throws -> Shown
    {
        // One sandbox for both: the service trusts a caller whose root and mounts are its own.
        let script =
            "LD_LIBRARY_PATH=\"$1\" \"$2\" --serve --idle-exit 2 & "
            + "GI_TYPELIB_PATH=\"$3\" LD_LIBRARY_PATH=\"$3\" GSK_RENDERER=cairo exec /usr/bin/python3 \"$4\" --size \"$5\""
            + (inPlace ? " --in-place" : "")
        let app = try gnome.launch(
            [
                "/bin/sh", "-c", script, "sh", files.swiftLibraries, files.kbwatch, files.library, files.chat,
                "\(place?.width ?? 1280)x\(place?.height ?? 768)",
            ],
            name: "chat.py")
        defer {
            print("chat (in place: \(inPlace)) said:\n\(app.log)")
            app.stopWithDescendants()
        }
        try Wait.require("the chat to subscribe; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") || !app.isRunning
        }
        let window = HeadlessGnomeShell.windowOf(app.pid)
        if let place {
            _ = try gnome.eval("\(window).move_frame(true, \(place.x), \(place.y))")
        } else {
            _ = try gnome.eval(
                "(() => { const w = \(window); try { w.maximize(imports.gi.Meta.MaximizeFlags.BOTH); } "
                    + "catch (e) { w.maximize(); } return 0; })()")
        }
        let expected = place ?? Rect(x: 0, y: 32, width: 1280, height: 768)
        var placed = ""
        let moved = Wait.until(timeout: 10) {
            placed = (try? gnome.eval(Self.frameOf(window))) ?? ""
            if let place, Self.rect(placed) != expected {
                _ = try? gnome.eval(
                    "\(window).move_resize_frame(true, \(place.x), \(place.y), \(place.width), \(place.height))")
            }
            return Self.rect(placed) == expected
        }
        if !moved { throw TestFailure("the chat is at \(placed), not \(expected)") }
        let mark = app.log.count
        if gnome.stack == .debian13 {
            // GTK 4.18 asks on a click's release in a focused entry; a click that only gave the
            // focus is repeated once.
            try gnome.focus(app)
            try gnome.click(app, y: 0.97)
            if !Wait.until(timeout: 1.5, interval: 0.05, { gnome.keyboardVisible == true }) {
                try gnome.click(app, y: 0.97)
            }
        } else {
            try gnome.tap(app, y: 0.97)
        }
        try Wait.require("the keyboard to open for the chat", timeout: 10) { gnome.keyboardVisible == true }
        let keyboard = try Self.settledKeyboard(gnome)
        // The window's actor where the shell leaves it once both slides have ended.
        var shownY = ""
        try Wait.require("the chat's window to stop moving", timeout: 10) {
            let now = (try? gnome.eval("\(window).get_compositor_private().y")) ?? ""
            defer { shownY = now }
            return now == shownY && !now.isEmpty
        }
        let frameText = try gnome.eval(Self.frameOf(window))
        let frame = try #require(Self.rect(frameText), "the window's frame: \(frameText)")
        let shown = Rect(
            x: frame.x, y: Int(Double(shownY)?.rounded() ?? 0) + frame.y - Self.bufferTop(gnome, window),
            width: frame.width, height: frame.height)
        try Wait.require("the chat to lay its bar out on the keyboard; it said:\n\(app.log)", timeout: 10) {
            ExampleBar.barBottoms(String(app.log.dropFirst(mark))).last == keyboard.y
        }
        let name = "\(inPlace ? "in-place" : "slide")-\(gnome.stack.gnomeShellMajor)"
        var found: (top: Int, end: Int)?
        var header = false
        var failure: (any Error)?
        // A screenshot may be taken before the chat's last frame reached the screen.
        _ = Wait.until(timeout: 5) {
            let image: RGBImage
            do { image = try Self.screenshot(gnome, name: name) } catch {
                failure = error
                return false
            }
            found = ExamplePixels.lowestBar(in: image, column: 400)
            header = Self.showsTitle(image)
            return found?.end == keyboard.y
        }
        if found == nil, let failure { Issue.record(failure, "no screenshot") }
        let reported = String(app.log.dropFirst(mark))
        _ = try? gnome.kbwatch(["--hide"])
        try Wait.require("the keyboard to hide", timeout: 10) { gnome.keyboardVisible == false }
        return Shown(
            keyboard: keyboard, window: shown, barBottom: found?.end ?? -1, headerShown: header, reported: reported)
    }

    /// Whether the chat's header bar is on screen: its title, "Chat", dark on light, in the middle
    /// of the rows below the shell's top bar (slid up, the window shows its empty background there).
    static func showsTitle(_ image: RGBImage) -> Bool {
        (600..<680).contains { x in (33..<260).contains { y in (image.color(x: x, y: y) ?? 0xFFFFFF) >> 16 < 0x80 } }
    }

    /// Where the chat is put for its second run: smaller than maximized (mutter maximizes a window
    /// about as large as the work area), lower, its bottom on the monitor's.
    static let lower = Rect(x: 40, y: 200, width: 1200, height: 600)

    /// The keyboard actor's frame once it has stopped moving.
    static func settledKeyboard(_ gnome: HeadlessGnomeShell) throws -> Rect {
        var last = ""
        try Wait.require("the keyboard to settle", timeout: 10) {
            let now = (try? gnome.keyboardExtents()) ?? ""
            defer { last = now }
            return now == last && (Self.extents(now)?.maxY ?? 0) == 800
        }
        return try #require(Self.extents(last))
    }

    /// The top of the window's buffer (its actor is placed there; the frame may lie inside it).
    static func bufferTop(_ gnome: HeadlessGnomeShell, _ window: String) -> Int {
        (try? gnome.eval("\(window).get_buffer_rect().y")).flatMap { Int($0) } ?? 0
    }

    /// `x,y WxH` as a rectangle.
    static func extents(_ text: String) -> Rect? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "x" }).compactMap { Int($0) }
        guard parts.count == 4 else { return nil }
        return Rect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
    }

    /// JavaScript giving `window`'s frame as `x,y,width,height`.
    static func frameOf(_ window: String) -> String {
        "(() => { const r = \(window).get_frame_rect(); return [r.x, r.y, r.width, r.height].join(','); })()"
    }

    /// `x,y,width,height` as a rectangle.
    static func rect(_ text: String) -> Rect? {
        let parts = text.split(separator: ",").compactMap { Int($0) }
        guard parts.count == 4 else { return nil }
        return Rect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
    }

    /// A screenshot taken by the shell (`org.gnome.Shell.Screenshot`), kept as `name`.png under
    /// ``shots``, read through GdkPixbuf.
    static func screenshot(_ gnome: HeadlessGnomeShell, name: String) throws -> RGBImage {
        // Where the session's user (the shell) may write.
        let png = gnome.runtime.xdg + "/\(name).png"
        let taken = try gnome.run([
            "/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", "gdbus", "call", "--session", "--dest", "org.gnome.Shell",
            "--object-path", "/org/gnome/Shell/Screenshot",
            "--method", "org.gnome.Shell.Screenshot.Screenshot", "false", "false", png,
        ])
        guard taken.status == 0, taken.output.contains("true") else {
            throw TestFailure("the shell's screenshot failed (\(taken.status)): \(taken.output)")
        }
        let ppm = gnome.runtime.path + "/\(name).ppm"
        let converted = try Programs.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, gi; gi.require_version('GdkPixbuf', '2.0'); from gi.repository import GdkPixbuf\n"
                    + "p = GdkPixbuf.Pixbuf.new_from_file(sys.argv[1]); w, h, n, s = p.get_width(), p.get_height(), "
                    + "p.get_n_channels(), p.get_rowstride(); b = p.get_pixels()\n"
                    + "rows = [bytes(b[y * s + x * n + c] for x in range(w) for c in range(3)) for y in range(h)]\n"
                    + "open(sys.argv[2], 'wb').write(b'P6\\n%d %d\\n255\\n' % (w, h) + b''.join(rows))",
                png, ppm,
            ])
        guard converted.status == 0, let data = FileManager.default.contents(atPath: ppm),
            let image = ExamplePixels.ppm(data)
        else { throw TestFailure("the screenshot \(png) could not be read: \(converted.output)") }
        try? FileManager.default.removeItem(atPath: shots + "/\(name).png")
        try? FileManager.default.copyItem(atPath: png, toPath: shots + "/\(name).png")
        return image
    }

    /// What the userland's processes run, copied where the session's user reaches them.
    struct ReachableFiles {
        /// kbwatch.
        var kbwatch: String
        /// The Swift runtime kbwatch links (the toolchain's, which the userland lacks).
        var swiftLibraries: String
        /// libkeyboard-adapter and its GTK 4 companion, with their typelibs.
        var library: String
        /// The chat.
        var chat: String
    }

    static func reachableFiles(_ gnome: HeadlessGnomeShell) throws -> ReachableFiles {
        let manager = FileManager.default
        let swift = gnome.runtime.path + "/swift-lib"
        let library = gnome.runtime.path + "/ka-lib"
        for directory in [swift, library] {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let linked = try Programs.run("/usr/bin/ldd", [Kbwatch.path]).output
        for line in linked.split(separator: "\n") {
            guard let path = line.split(separator: " ").first(where: { $0.hasPrefix("/") && $0.contains("/swift/") })
            else { continue }
            try? manager.copyItem(
                atPath: String(path), toPath: swift + "/" + URL(fileURLWithPath: String(path)).lastPathComponent)
        }
        for directory in ["keyboard-adapter", "gtk4"] {
            let built = KeyboardAdapterLibrary.buildDirectory + "/" + directory
            for file in try manager.contentsOfDirectory(atPath: built)
            where file.hasSuffix(".typelib") || file.contains(".so") {
                try? manager.copyItem(atPath: built + "/" + file, toPath: library + "/" + file)
            }
        }
        let chat = try gnome.runtime.write("chat.py", String(contentsOfFile: GTK4ExampleTests.script, encoding: .utf8))
        return ReachableFiles(
            kbwatch: try gnome.reachableCopy(of: Kbwatch.path), swiftLibraries: swift, library: library, chat: chat)
    }
}
