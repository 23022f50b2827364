import Foundation
import TestSupport
import Testing

/// A stranger on the session bus addresses forged signals to the session service and to its
/// client (the bus delivers them whatever the receiver's match rules say): the bus's
/// `NameOwnerChanged` naming the subscriber as gone (to the service) and the service as gone (to
/// the client), and a `SubscriberEvent` of its own (to the client). None is believed: the client
/// goes on, prints nothing of them, and hears the next real show.
@Suite("forged signals to the session service and its client")
struct ForgedSignalTests {
    @Test(
        "NameOwnerChanged to the service and to the client, SubscriberEvent, Event and Verdict to the client: nothing changes"
    )
    func forgedToServiceAndClient() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3"]) else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let client = try Kbwatch.start(["--json", "--from-service", "--pid", String(world.mine.pid)], environment: env)
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let owner = try world.bus.owner(of: "org.keyboardadapter.Watcher")
        let service = try #require(owner.flatMap { try? world.bus.pid(of: $0) }, "the service's pid")
        Thread.sleep(forTimeInterval: 1)

        // To the service: the client's connections are gone. To the client: the service is gone,
        // and an event of the stranger's own, with a terminal escape in it.
        let (path, interface) = ("/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2")
        let clientNames = try world.bus.uniqueNames(of: client.pid)
        #expect(!clientNames.isEmpty)
        for name in clientNames {
            #expect(try ForgedSignals.send(.nameLost(name), toConnectionsOf: service, bus: world.bus.address) >= 1)
        }
        try ForgedSignals.send(
            .nameLost("org.keyboardadapter.Watcher"), toConnectionsOf: client.pid, bus: world.bus.address)
        try ForgedSignals.send(
            .string(path: path, interface: interface, member: "SubscriberEvent", value: "FORGED\u{1B}[31m"),
            toConnectionsOf: client.pid, bus: world.bus.address)
        // A well-formed update too: only its sender gives it away.
        try ForgedSignals.send(
            .update(path: path, interface: interface, member: "SubscriberEvent", name: "FORGED"),
            toConnectionsOf: client.pid, bus: world.bus.address)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(client.isRunning, "the client ended: \(client.log)")

        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        try Wait.require("the client's didShow (\(client.log))", timeout: 15) {
            client.log.contains(#""event":"didShow""#)
        }
        #expect(!client.log.contains("FORGED"), "\(client.log)")
        let lines = client.log.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{\"schema\":1,") }, "\(client.log)")
        #expect(
            lines.contains { $0.contains(#""event":"willShow""#) && $0.contains(#""local":true"#) }, "\(client.log)")

        // Hidden, then the stranger's verdicts: from each of the next shows on, not the client's.
        // The service sends a verdict only when it changes: believed, they would hold at the next
        // show, for the same window.
        keyboard.stop()
        try Wait.require("the client's didHide (\(client.log))", timeout: 15) {
            client.log.contains(#""event":"didHide""#)
        }
        for show in 1...12 {
            try ForgedSignals.send(
                .variant(
                    path: path, interface: interface, member: "Verdict", value: "(uint32 \(show), {'local': <false>})"),
                toConnectionsOf: client.pid, bus: world.bus.address)
        }
        try ForgedSignals.send(
            .update(path: path, interface: interface, member: "Event", name: "FORGED"), toConnectionsOf: client.pid,
            bus: world.bus.address)
        let shownAgain = client.log.components(separatedBy: #""event":"didShow""#).count
        let again = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { again.stop() }
        try Wait.require("the client's second didShow (\(client.log))", timeout: 15) {
            client.log.components(separatedBy: #""event":"didShow""#).count > shownAgain
        }
        let second = client.log.split(separator: "\n").last { $0.contains(#""event":"didShow""#) } ?? ""
        #expect(second.contains(#""local":true"#), "\(client.log)")
        #expect(!client.log.contains("FORGED"), "\(client.log)")
        client.signal(SIGINT)
        #expect(client.waitForExit(timeout: 5) == 0)
    }
}
