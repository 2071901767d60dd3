import Testing
@testable import App

/// The walk an event pack takes through `excludeWinnersOf` (issue #41): every draw once, cycles
/// end, a gone draw is missing, and no more than the bound is read.
@Suite("EventWalk")
struct EventWalkTests {
    @Test func followsLinksTransitivelyEachDrawOnce() {
        let links = ["C": ["A", "B"], "B": ["A"], "A": [String]()]
        let walk = EventWalk.walk(from: "C") { links[$0] }
        #expect(walk.found == ["C", "A", "B"])
        #expect(walk.links == ["C": ["A", "B"], "B": ["A"], "A": []])
        #expect(walk.missing.isEmpty && walk.leftOut.isEmpty)
    }

    @Test func aDrawWithoutLinksIsItsOwnEvent() {
        let walk = EventWalk.walk(from: "A") { $0 == "A" ? [] : ["X"] }
        #expect(walk.found == ["A"])
    }

    @Test func cyclesEndAndRepeatedLinksCountOnce() {
        var reads: [String] = []
        let links = ["A": ["B", "B"], "B": ["C", "A"], "C": ["A", "B", "C"]]
        let walk = EventWalk.walk(from: "A") { reads.append($0); return links[$0] }
        #expect(walk.found == ["A", "B", "C"])
        #expect(reads == ["A", "B", "C"])
        #expect(walk.links["A"] == ["B"])
    }

    @Test func aGoneDrawIsMissingAndTheWalkGoesOn() {
        let links = ["C": ["GONE", "B"], "B": ["GONE2"]]
        let walk = EventWalk.walk(from: "C") { links[$0] }
        #expect(walk.found == ["C", "B"])
        #expect(walk.missing == ["GONE", "GONE2"])
    }

    @Test func readsNoMoreThanTheBound() {
        // A chain of 200 draws, each linking the next, and a fan of 200 links from one draw.
        var reads = 0
        let chain = EventWalk.walk(from: "D0", bound: 50) { code in
            reads += 1
            return ["D\(Int(code.dropFirst())! + 1)"]
        }
        #expect(reads == 50 && chain.found.count == 50)
        #expect(chain.leftOut == ["D50"])
        let fan = EventWalk.walk(from: "HUB", bound: 5) { $0 == "HUB" ? (1...200).map { "F\($0)" } : [] }
        #expect(fan.found == ["HUB", "F1", "F2", "F3", "F4"])
        #expect(fan.leftOut.count == 196)
        #expect(EventWalk.most == 50)
    }
}
