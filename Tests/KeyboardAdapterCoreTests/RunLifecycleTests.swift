@_spi(BackendRun) import KeyboardBackendInterface
import Testing

@testable import KeyboardAdapterCore

/// The manager's run lifecycle as the state machine it is: each transition and the action it
/// returns, from a thread that is not the run's loop.
@Suite("Manager: the run lifecycle's transitions")
struct RunLifecycleTests {
    private static func run() throws -> ManagerRun { ManagerRun(loop: try KeyboardRunLoop()) }

    private static func name(_ action: RunLifecycle.Action, _ run: ManagerRun) -> String {
        switch action {
        case .none: "none"
        case .open(let other): other === run ? "open" : "open another"
        case .end(let other): other === run ? "end" : "end another"
        case .awaitEnd(let other): other === run ? "awaitEnd" : "awaitEnd another"
        case .release(let other): other === run ? "release" : "release another"
        }
    }

    @Test("start, opened, stop, ended: open, release, end; back to idle, and a second start opens a new run")
    func wholeRun() throws {
        var lifecycle = RunLifecycle()
        let first = try Self.run()
        #expect(Self.name(lifecycle.start(making: { first }), first) == "open")
        #expect(lifecycle.current === first)
        #expect(try Self.name(lifecycle.start(making: { try Self.run() }), first) == "none", "a start while starting")
        #expect(Self.name(lifecycle.opened(first), first) == "release")
        #expect(try Self.name(lifecycle.start(making: { try Self.run() }), first) == "none", "a start while running")
        #expect(Self.name(lifecycle.stop(), first) == "end")
        #expect(lifecycle.current == nil)
        #expect(try Self.name(lifecycle.start(making: { try Self.run() }), first) == "awaitEnd", "a start while ending")
        #expect(Self.name(lifecycle.stop(), first) == "awaitEnd", "a second stop waits for the first")
        lifecycle.ended(first)
        let second = try Self.run()
        #expect(Self.name(lifecycle.start(making: { second }), second) == "open")
    }

    @Test("a stop while starting is remembered: the start's end comes once the backend's start returns")
    func stopWhileStarting() throws {
        var lifecycle = RunLifecycle()
        let run = try Self.run()
        _ = lifecycle.start(making: { run })
        #expect(Self.name(lifecycle.stop(), run) == "awaitEnd")
        #expect(lifecycle.current == nil, "observations of a run asked to stop count for nothing")
        #expect(try Self.name(lifecycle.start(making: { try Self.run() }), run) == "awaitEnd")
        #expect(Self.name(lifecycle.opened(run), run) == "end")
        lifecycle.ended(run)
        #expect(lifecycle.current == nil)
        let next = try Self.run()
        #expect(Self.name(lifecycle.start(making: { next }), next) == "open")
    }

    @Test("the backend ending by itself ends the run once; a failed start leaves the lifecycle idle")
    func finishedAndFailed() throws {
        var lifecycle = RunLifecycle()
        let run = try Self.run()
        _ = lifecycle.start(making: { run })
        #expect(Self.name(lifecycle.finished(run), run) == "none", "the end of a run not yet up is not its own")
        _ = lifecycle.opened(run)
        #expect(Self.name(lifecycle.finished(run), run) == "end")
        #expect(Self.name(lifecycle.finished(run), run) == "none", "a second end is nobody's")
        lifecycle.ended(run)
        let failing = try Self.run()
        _ = lifecycle.start(making: { failing })
        #expect(Self.name(lifecycle.openFailed(failing), failing) == "end")
        #expect(lifecycle.current == nil)
        let next = try Self.run()
        #expect(Self.name(lifecycle.start(making: { next }), next) == "open")
    }

    @Test("a transition about an earlier run changes nothing of the current one")
    func staleRun() throws {
        var lifecycle = RunLifecycle()
        let old = try Self.run()
        let current = try Self.run()
        _ = lifecycle.start(making: { current })
        _ = lifecycle.opened(current)
        lifecycle.ended(old)
        #expect(Self.name(lifecycle.finished(old), current) == "none")
        #expect(lifecycle.current === current)
    }
}
