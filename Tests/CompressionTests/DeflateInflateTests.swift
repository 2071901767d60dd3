import Compression
import Testing

@Suite struct DeflateInflateTests {
    /// Text with repeats (compresses well) and seeded noise (does not).
    static func sample(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            if state >> 63 == 0 {
                out += Array(#"{"type":"tick","value":"#.utf8)
            } else {
                out.append(UInt8(truncatingIfNeeded: state >> 33))
            }
        }
        return Array(out.prefix(count))
    }

    @Test(arguments: [(0, 15), (1, 15), (100, 15), (70_000, 15), (5_000, 8), (5_000, 9), (200_000, 10)])
    func messagesRoundTripThroughOneStreamPair(_ count: Int, _ windowBits: Int) throws {
        let deflate = try DeflateStream(windowBits: windowBits)
        let inflate = try InflateStream(windowBits: 15)
        // Three messages on the same pair: the window carries over between them.
        for seed in 1...3 as ClosedRange<UInt64> {
            let message = Self.sample(count: count, seed: seed &+ UInt64(count))
            let compressed = try deflate.compressMessage(message)
            var output: [UInt8] = []
            try inflate.inflateMessageEnd(compressed, into: &output, limit: count + 1)
            #expect(output == message, "seed \(seed), \(count) bytes, window \(windowBits)")
        }
    }

    @Test func inflatesACompressedMessageSplitAtEveryOffset() throws {
        let message = Self.sample(count: 600, seed: 42)
        let compressed = try DeflateStream().compressMessage(message)
        for split in 0...compressed.count {
            let inflate = try InflateStream()
            var output: [UInt8] = []
            try inflate.inflate(compressed[..<split], into: &output, limit: 10_000)
            try inflate.inflateMessageEnd(compressed[split...], into: &output, limit: 10_000)
            #expect(output == message, "split at \(split)")
        }
    }

    @Test func resetForgetsTheWindow() throws {
        let message = Array(String(repeating: "tombola ", count: 64).utf8)
        let deflate = try DeflateStream()
        _ = try deflate.compressMessage(message)
        let withContext = try deflate.compressMessage(message)
        deflate.reset()
        let fresh = try deflate.compressMessage(message)
        #expect(withContext.count < fresh.count)
        // A fresh inflater reads the message compressed after reset.
        var output: [UInt8] = []
        try InflateStream().inflateMessageEnd(fresh, into: &output, limit: message.count)
        #expect(output == message)
    }

    @Test func aBombStopsAtTheLimitWithoutBufferingIt() throws {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let compressed = try DeflateStream().compressMessage(zeros)
        #expect(compressed.count < 8 * 1024)
        var output: [UInt8] = []
        #expect(throws: CompressionError.outputLimitExceeded(limit: 65_536)) {
            try InflateStream().inflateMessageEnd(compressed, into: &output, limit: 65_536)
        }
        #expect(output.count <= 65_536 + 1)
    }

    @Test func anExactFitIsNotOverTheLimit() throws {
        let message = Self.sample(count: 4096, seed: 7)
        var output: [UInt8] = []
        try InflateStream().inflateMessageEnd(try DeflateStream().compressMessage(message), into: &output, limit: 4096)
        #expect(output == message)
    }

    @Test func corruptInputIsAnErrorNotACrash() throws {
        var output: [UInt8] = []
        // BTYPE 11 is reserved (RFC 1951 §3.2.3).
        #expect(throws: CompressionError.corruptData) {
            try InflateStream().inflateMessageEnd([0xff, 0xff, 0xff, 0xff], into: &output, limit: 1024)
        }
    }

    @Test func anEmptyMessageIsOneZeroByte() throws {
        #expect(try DeflateStream().compressMessage([]) == [0x00])
        var output: [UInt8] = []
        try InflateStream().inflateMessageEnd([0x00], into: &output, limit: 10)
        #expect(output.isEmpty)
    }
}
