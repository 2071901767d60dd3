import DrawEngine
import Testing
@testable import ClusterCore

/// The rolling hint's one encoder and decoder (`{d:CODE}:rolling`, docs/CLUSTER.md, *Takeover*).
@Suite struct ClusterRollingHintTests {
    static let hints = [
        ClusterRollingHint(commitment: "c0ffee", round: 2, contributions: [Contribution(hex: "00112233445566778899aabbccddeeff")!],
                           audience: "12"),
        ClusterRollingHint(commitment: "c0ffee", round: 1, contributions: [], audience: nil),
    ]

    @Test func aHintReadsBackAsItWasWritten() throws {
        for hint in Self.hints { #expect(try ClusterRollingHint.decode(String(decoding: hint.encoded, as: UTF8.self)) == hint) }
    }

    @Test func theWireIsTheOneTheTakeoverTestsWrite() throws {
        // ClusterResumeTests write the hint by hand, as an older owner did.
        #expect(String(decoding: Self.hints[1].encoded, as: UTF8.self) == #"{"audience":null,"commitment":"c0ffee","contributions":[],"round":1}"#)
    }

    @Test func everyPrefixIsRefused() {
        for hint in Self.hints {
            let text = String(decoding: hint.encoded, as: UTF8.self)
            for end in 0..<text.utf8.count {
                #expect(throws: ClusterWireError.notJSON) { try ClusterRollingHint.decode(String(decoding: Array(text.utf8)[..<end], as: UTF8.self)) }
            }
        }
    }

    @Test(arguments: [
        ("[]", ClusterWireError.notJSON), (#"{"round":1,"contributions":[]}"#, .badMember("commitment")),
        (#"{"commitment":"c","contributions":[]}"#, .badMember("round")), (#"{"commitment":"c","round":1}"#, .badMember("contributions")),
        (#"{"commitment":"c","round":1,"contributions":["zz"]}"#, .badMember("contributions")),
        (#"{"commitment":"c","round":1,"contributions":[],"audience":12}"#, .badMember("audience")),
    ])
    func malformedHintsAreRefusedWithWhy(text: String, error: ClusterWireError) {
        #expect(throws: error) { try ClusterRollingHint.decode(text) }
    }
}
