import Foundation
import Testing
import X11Adapter

/// The X11 backend's public error, as an app sees it.
@Suite("X11 error descriptions")
struct X11ErrorDescriptionTests {
    @Test("a broken rules file reads as its reason through localizedDescription")
    func rulesFile() throws {
        let error = #expect(throws: RulesFileError.self) { try KeyboardRules.parse(Data("{\"rules\":".utf8)) }
        let failure = try #require(error)
        let shown = (failure as any Error).localizedDescription
        #expect(shown == failure.description)
        #expect(shown.hasPrefix("not a valid rules file: "))
    }
}
