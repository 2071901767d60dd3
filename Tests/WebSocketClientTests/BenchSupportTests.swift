import Foundation
import Testing
import WebSocketClient

@Suite struct BenchSupportTests {
    private func withBytes<R>(_ text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        Array(text.utf8).withUnsafeBytes(body)
    }

    @Test(arguments: [
        (#"{"type":"tick","seq":42,"at":1764455400123.5,"value":417}"#, 42, 1764455400123.5),
        (#"{"seq":7,"value":"Ann","at":1764455400000,"type":"tick"}"#, 7, 1764455400000),
        (#"{"type": "tick", "seq": 1, "at": 1.25e3}"#, 1, 1250),
        (#"{"type":"tick","at":1764455400123.625,"seq":900000001}"#, 900_000_001, 1764455400123.625),
    ])
    func readsSeqAndAtOfTicks(_ text: String, _ seq: Int, _ at: Double) {
        let tick = withBytes(text) { TickFields.parse($0) }
        #expect(tick == TickFields(seq: seq, at: at))
    }

    @Test(arguments: [
        #"{"type":"viewers","count":12}"#,
        #"{"type":"phase","phase":"rolling"}"#,
        #"{"type":"ticker","seq":1,"at":2}"#,
        #"{"type":"tick","seq":"1","at":2}"#,
        #"{"type":"tick","seq":1.5,"at":2}"#,
        #"{"type":"tick","seq":1}"#,
        #"{"type":"tick","seq":1,"at":}"#,
        #"{"type":"tick","seq":1,"at":12.}"#,
        #"{"type":"tick""#,
        "",
    ])
    func ignoresAnythingButACompleteTick(_ text: String) {
        #expect(withBytes(text) { TickFields.parse($0) } == nil)
    }

    @Test func readsStringFieldsAndTypes() {
        let text = #"{"type":"error","code":"bad_key","message":"Wrong \"key\""}"#
        withBytes(text) { bytes in
            #expect(JSONFieldScanner.hasType("error", in: bytes))
            #expect(!JSONFieldScanner.hasType("err", in: bytes))
            #expect(JSONFieldScanner.string("code", in: bytes) == "bad_key")
            #expect(JSONFieldScanner.string("message", in: bytes) == #"Wrong \"key\""#)
            #expect(JSONFieldScanner.string("missing", in: bytes) == nil)
            #expect(JSONFieldScanner.integer("code", in: bytes) == nil)
        }
    }

    @Test func histogramIsExactBelow256Microseconds() {
        var histogram = LatencyHistogram()
        for value in 1...200 { histogram.record(UInt64(value)) }
        #expect(histogram.percentile(50) == 100)
        #expect(histogram.percentile(99) == 198)
        #expect(histogram.percentile(100) == 200)
        #expect(histogram.min == 1 && histogram.max == 200 && histogram.count == 200)
    }

    @Test func histogramPercentilesStayWithinOnePercentOfTheSortedValues() {
        let seed: UInt64 = 0x5EED_BE7C
        var rng = SplitMix(state: seed)
        var histogram = LatencyHistogram()
        var values: [UInt64] = []
        for _ in 0..<20_000 {
            // Log-uniform from 1 µs to about 17 s, like real latencies with a long tail.
            let value = UInt64(exp2(Double(rng.next() % 24_000) / 1000))
            values.append(value)
            histogram.record(value)
        }
        values.sort()
        for percent in [50.0, 90, 99, 99.9, 100] {
            let rank = max(1, Int((percent / 100 * Double(values.count)).rounded(.up)))
            let exact = Double(values[rank - 1])
            let estimate = Double(histogram.percentile(percent) ?? 0)
            #expect(estimate >= exact && estimate <= exact * 1.008 + 1, "seed \(seed) p\(percent): \(estimate) vs \(exact)")
        }
    }

    @Test func mergedHistogramsEqualOneHistogramOfAllValues() {
        var rng = SplitMix(state: 7)
        var all = LatencyHistogram()
        var first = LatencyHistogram()
        var second = LatencyHistogram()
        for i in 0..<5_000 {
            let value = rng.next() % 1_000_000
            all.record(value)
            if i % 3 == 0 { first.record(value) } else { second.record(value) }
        }
        first.merge(second)
        #expect(first == all)
        let rebuilt = LatencyHistogram(buckets: all.nonEmptyBuckets, sum: all.sum, min: all.min, max: all.max)
        #expect(rebuilt == all)
    }

    @Test func emptyHistogramHasNoPercentiles() {
        #expect(LatencyHistogram().percentile(50) == nil)
        #expect(LatencyHistogram().mean == nil)
    }
}

private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
