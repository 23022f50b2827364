import KeyboardAdapterCore
import Testing

@testable import WaylandAdapter

/// How what a keyboard's service says joins the reserved space, without a compositor.
@Suite("KeyboardReports with keyboard services")
struct ServiceClaimTests {
    typealias R = KeyboardReportsTests
    static let squeekboard = ServiceClaim(name: "squeekboard", pid: 4242, edge: .bottom, isVisible: true)
    static let hidden = ServiceClaim(name: "squeekboard", pid: 4242, edge: .bottom, isVisible: false)
    /// 24 px of bar at the bottom.
    static let bar = Rect(x: 0, y: 0, width: 1280, height: 776)

    /// `name pid frame geometry` per observation.
    static func named(_ observations: [KeyboardObservation]) -> [String] {
        observations.map {
            "\($0.keyboard.name) \($0.keyboard.pid.map(String.init) ?? "-") "
                + "\($0.frame.map(\.description) ?? ($0.isShown ? "shown" : "hidden")) \($0.geometry.rawValue)"
        }
    }

    /// Output 1 measured at `area` at start, with `claims`, then the start adoption.
    static func started(at area: Rect, claims: [ServiceClaim]) -> (KeyboardReports, [KeyboardObservation]) {
        var reports = KeyboardReports()
        _ = reports.outputChanged(1, to: R.first, time: 0)
        _ = reports.usableAreaChanged(1, to: area, time: 0)
        _ = reports.servicesChanged(to: claims, time: 0)
        let adopted = reports.adoptVisibleKeyboards(time: 0)
        return (reports, adopted)
    }

    @Test("a strip at the edge of the only running service is named after its keyboard, with its pid")
    func named() {
        var (reports, adopted) = Self.started(at: R.full, claims: [Self.hidden])
        #expect(adopted.isEmpty)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: R.docked, time: 1)) == [
                "squeekboard 4242 0,560 1280x240 derived"
            ])
        // The hide keeps the name, whatever the service says by then.
        _ = reports.servicesChanged(to: [], time: 2)
        #expect(Self.named(reports.usableAreaChanged(1, to: R.full, time: 2)) == ["squeekboard 4242 hidden derived"])
    }

    @Test("no claim for another edge, or with two running services: the strip stays anonymous")
    func anonymous() {
        let top = ServiceClaim(name: "topboard", pid: 1, edge: .top, isVisible: false)
        var (reports, _) = Self.started(at: R.full, claims: [top])
        #expect(
            Self.named(reports.usableAreaChanged(1, to: R.docked, time: 1)) == [
                "docked keyboard - 0,560 1280x240 derived"
            ])
        let anywhere = ServiceClaim(name: "anyboard", pid: 2, edge: nil, isVisible: false)
        (reports, _) = Self.started(at: R.full, claims: [Self.hidden, anywhere])
        #expect(
            Self.named(reports.usableAreaChanged(1, to: R.docked, time: 1)) == [
                "docked keyboard - 0,560 1280x240 derived"
            ])
    }

    @Test("up at start, no bar: the whole inset, an upper bound; hidden when it goes; exact from then on")
    func upAtStart() {
        var (reports, adopted) = Self.started(at: R.docked, claims: [Self.squeekboard])
        #expect(Self.named(adopted) == ["squeekboard 4242 0,560 1280x240 derivedUpperBound"])
        // Its service says hidden (before or after the zone goes): the hide.
        #expect(
            Self.named(reports.servicesChanged(to: [Self.hidden], time: 1)) == [
                "squeekboard 4242 hidden derivedUpperBound"
            ])
        #expect(reports.usableAreaChanged(1, to: R.full, time: 1).isEmpty)
        _ = reports.servicesChanged(to: [Self.squeekboard], time: 2)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: R.docked, time: 2)) == [
                "squeekboard 4242 0,560 1280x240 derived"
            ])
    }

    @Test("up at start over a bar: keyboard and bar as one upper bound, then the bar is baseline")
    func upAtStartOverBar() {
        let both = Rect(x: 0, y: 0, width: 1280, height: 536)
        var (reports, adopted) = Self.started(at: both, claims: [Self.squeekboard])
        #expect(Self.named(adopted) == ["squeekboard 4242 0,536 1280x264 derivedUpperBound"])
        // Its service says hidden (before or after the zone goes): the hide.
        #expect(
            Self.named(reports.servicesChanged(to: [Self.hidden], time: 1)) == [
                "squeekboard 4242 hidden derivedUpperBound"
            ])
        #expect(reports.usableAreaChanged(1, to: Self.bar, time: 1).isEmpty)
        _ = reports.servicesChanged(to: [Self.squeekboard], time: 2)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: both, time: 2)) == ["squeekboard 4242 0,560 1280x240 derived"])
        #expect(Self.named(reports.usableAreaChanged(1, to: Self.bar, time: 3)) == ["squeekboard 4242 hidden derived"])
    }

    @Test("up at start over a bar, the zone going before Visible: the hide comes with Visible false")
    func zoneBeforeVisible() {
        let both = Rect(x: 0, y: 0, width: 1280, height: 536)
        var (reports, _) = Self.started(at: both, claims: [Self.squeekboard])
        #expect(
            Self.named(reports.usableAreaChanged(1, to: Self.bar, time: 1)) == [
                "squeekboard 4242 0,776 1280x24 derivedUpperBound"
            ])
        #expect(
            Self.named(reports.servicesChanged(to: [Self.hidden], time: 1.001)) == [
                "squeekboard 4242 hidden derivedUpperBound"
            ])
        _ = reports.servicesChanged(to: [Self.squeekboard], time: 2)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: both, time: 2)) == ["squeekboard 4242 0,560 1280x240 derived"])
    }

    @Test("up at start, Visible false before the zone goes: hidden at once, the bar stays baseline")
    func visibleBeforeZone() {
        let both = Rect(x: 0, y: 0, width: 1280, height: 536)
        var (reports, _) = Self.started(at: both, claims: [Self.squeekboard])
        #expect(
            Self.named(reports.servicesChanged(to: [Self.hidden], time: 1)) == [
                "squeekboard 4242 hidden derivedUpperBound"
            ])
        #expect(reports.usableAreaChanged(1, to: Self.bar, time: 1.001).isEmpty)
        _ = reports.servicesChanged(to: [Self.squeekboard], time: 2)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: both, time: 2)) == ["squeekboard 4242 0,560 1280x240 derived"])
    }

    @Test("up at start, its service gone (bus or keyboard): geometry decides, nothing hides by itself")
    func serviceGoneAtStart() {
        var (reports, _) = Self.started(at: R.docked, claims: [Self.squeekboard])
        #expect(reports.servicesChanged(to: [], time: 1).isEmpty)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: R.full, time: 2)) == [
                "squeekboard 4242 hidden derivedUpperBound"
            ])
    }

    @Test("up at start and shrinking while its service still says up: a smaller upper bound, no hide")
    func shrinkAtStart() {
        var (reports, _) = Self.started(at: R.docked, claims: [Self.squeekboard])
        let smaller = Rect(x: 0, y: 0, width: 1280, height: 600)
        #expect(
            Self.named(reports.usableAreaChanged(1, to: smaller, time: 1)) == [
                "squeekboard 4242 0,600 1280x200 derivedUpperBound"
            ])
    }

    @Test("up at start with nothing reserved: up at an unknown place until its service says hidden")
    func unplaced() {
        var (reports, adopted) = Self.started(at: R.full, claims: [Self.squeekboard])
        #expect(Self.named(adopted) == ["squeekboard 4242 shown unknown"])
        #expect(adopted.first?.keyboard.id == "wayland:squeekboard")
        #expect(adopted.first?.output == R.first)
        #expect(Self.named(reports.servicesChanged(to: [Self.hidden], time: 1)) == ["squeekboard 4242 hidden unknown"])
    }

    @Test("up at an unknown place, then its strip appears: the unplaced one hides first")
    func unplacedThenPlaced() {
        var (reports, _) = Self.started(at: R.full, claims: [Self.squeekboard])
        #expect(
            Self.named(reports.usableAreaChanged(1, to: R.docked, time: 1)) == [
                "squeekboard 4242 hidden unknown", "squeekboard 4242 0,560 1280x240 derived",
            ])
    }

    @Test("no service visible at start: what is reserved is baseline, as without services")
    func baselineWithoutVisibleService() {
        let (_, adopted) = Self.started(at: R.docked, claims: [Self.hidden])
        #expect(adopted.isEmpty)
    }
}
