import Foundation
import TestSupport
import Testing

/// kbwatch's loop thread asks the kernel for a 0.1 ms time slice once a display connection joins
/// it, so that an event is handled as soon as it comes on a busy machine; the request keeps the
/// thread's nice value, and a kernel that ignores it changes nothing.
@Suite("the loop thread's time slice")
struct LoopSliceTests {
    static let requested: Int64 = 100_000

    /// What `--doctor` says of the request on this kernel.
    static func doctorLine(prefix: String) -> String {
        prefix + "asks for a 0.1 ms time slice, which this kernel "
            + (LoopThread.kernelHonoursSlices ? "keeps" : "ignores")
    }

    /// Waits for `process`'s loop thread and checks the slice it ends up with.
    func expectShortSlice(_ process: WatchedProcess, backend: String) throws {
        var thread: LoopThread?
        try Wait.require("kbwatch's loop thread (\(backend))", timeout: 10) {
            thread = LoopThread.of(pid: process.pid)
            return thread != nil || process.exitStatus != nil
        }
        let loop = try #require(thread, "kbwatch ended: \(process.errors)")
        if LoopThread.kernelHonoursSlices {
            // The backend asks as it starts, on the loop's thread.
            #expect(Wait.until(timeout: 5) { loop.slice == Self.requested }, "slice: \(String(describing: loop.slice))")
        }
        // Where the kernel keeps no per-thread slice (before Linux 6.12), the request changes
        // nothing: kbwatch goes on watching either way.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(process.exitStatus == nil, "kbwatch ended: \(process.errors)")
    }

    @Test("X11: the slice is 0.1 ms while kbwatch watches, also under nice 5")
    func x11() throws {
        guard try Programs.ready(["Xvfb", "xvkbd", "nice"]) else { return }
        let session = try X11Session()
        defer { session.stop() }
        try session.start("xvkbd", ["-geometry", "640x200+320+600"])
        let watcher = try Kbwatch.watch(["--backend", "x11"], environment: session.environment)
        defer { watcher.stop() }
        try expectShortSlice(watcher, backend: "x11")
        let doctor = try Kbwatch.run(["--doctor", "--backend", "x11"], environment: session.environment)
        #expect(doctor.stdout.contains(Self.doctorLine(prefix: "    event thread: ")), "\(doctor.stdout)")

        // Under nice, the request keeps the nice value (setting a slice alone would reset it to 0,
        // which an ordinary user may not do).
        let niced = try WatchedProcess(
            "nice", ["-n", "5", Kbwatch.path, "--backend", "x11"], environment: session.environment)
        defer { niced.stop() }
        try expectShortSlice(niced, backend: "x11 under nice 5")
        let thread = try #require(LoopThread.of(pid: niced.pid))
        let stat = try String(contentsOfFile: "/proc/\(niced.pid)/task/\(thread.tid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ") ")!.upperBound...].split(separator: " ")
        #expect(fields[16] == "5", "nice of the loop thread: \(fields[16])")
    }

    @Test("Wayland: the slice is 0.1 ms while kbwatch watches headless sway", arguments: Stack.compositors)
    func wayland(stack: Stack) throws {
        guard try Userland.ready(stack, ["sway"]) else { return }
        let sway = try HeadlessSway(stack: stack)
        defer { sway.stop() }
        let watcher = try Kbwatch.watch(["--backend", "wayland"], environment: sway.clientEnvironment)
        defer { watcher.stop() }
        try expectShortSlice(watcher, backend: "wayland")
        let doctor = try Kbwatch.run(["--doctor", "--backend", "wayland"], environment: sway.clientEnvironment)
        #expect(doctor.stdout.contains(Self.doctorLine(prefix: "    event thread: ")), "\(doctor.stdout)")
    }
}
