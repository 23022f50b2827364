import KbwatchOutput
import Testing

/// The JSON lines write the enumerations' names as static text, apart from their raw values.
@Suite("kbwatch: the names in JSON lines")
struct JSONNameTests {
    @Test("every event, curve, geometry and timing is written as its raw value")
    func namesAreRawValues() {
        #expect(JSONWriter.namesMatchRawValues)
    }
}
