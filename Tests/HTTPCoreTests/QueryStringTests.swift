import Testing
import HTTPCore

@Suite struct QueryStringTests {
    @Test(arguments: [
        ("", []),
        ("a=1", [["a", "1"]]),
        ("a=1&b=x+y&a=2", [["a", "1"], ["b", "x y"], ["a", "2"]]),
        ("flag&&c=", [["flag", ""], ["c", ""]]),
        ("k=%E4%B8%80%20%2B", [["k", "一 +"]]),
        ("k=a=b", [["k", "a=b"]]),
        ("k=%zz%4", [["k", "%zz%4"]]),
        ("k=%ff", [["k", "\u{FFFD}"]]),
    ] as [(String, [[String]])])
    func parsesPairsInOrder(query: String, pairs: [[String]]) {
        #expect(QueryString.parse(query).map { [$0.0, $0.1] } == pairs)
    }

    @Test func findsTheFirstValue() {
        #expect(QueryString.value(of: "b", in: "a=1&b=2&b=3") == "2")
        #expect(QueryString.value(of: "c", in: "a=1") == nil)
        #expect(QueryString.value(of: "a", in: nil) == nil)
    }
}
