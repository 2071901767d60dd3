import Testing
import HTTPCore

/// SplitMix64: a small seeded generator so failures can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct HTTPRequestParserFuzzTests {
    /// Requests parsed until the first error, and that error.
    static func outcome(_ chunks: [[UInt8]], limits: HTTPLimits) -> ([HTTPRequest], HTTPParseError.Kind?) {
        var parser = HTTPRequestParser(limits: limits)
        var requests: [HTTPRequest] = []
        do {
            for chunk in chunks {
                parser.append(chunk)
                while let request = try parser.next() { requests.append(request) }
            }
            return (requests, nil)
        } catch {
            return (requests, error.kind)
        }
    }

    static let samples = [
        "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\n\r\n",
        "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 12\r\n\r\nhello world!",
        "PUT /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\n",
        "GET / HTTP/1.0\nConnection: close\n\n",
    ]

    /// Mutated requests give the same requests and the same error however the bytes are cut.
    @Test func outcomeDoesNotDependOnHowBytesArrive() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SeededGenerator(seed: seed)
        // Small limits so that mutations reach every limit too.
        let limits = HTTPLimits(requestLineBytes: 40, headerBytes: 120, headerFields: 4, bodyBytes: 30, chunkSizeLineBytes: 8)
        let alphabet = Array("\r\n :;0123456789abcdefF\t\u{0}/?%HTTP.1GETchunked-".utf8)
        var failures = 0, successes = 0
        for iteration in 0..<400 {
            var bytes = Array((0..<Int.random(in: 1...3, using: &rng)).map { _ in Self.samples.randomElement(using: &rng)! }
                .joined().utf8)
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[position] = alphabet.randomElement(using: &rng)!
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: position)
                default: bytes.remove(at: position)
                }
            }
            var chunks: [[UInt8]] = []
            var rest = bytes[...]
            while !rest.isEmpty {
                let n = Int.random(in: 1...max(1, min(rest.count, 9)), using: &rng)
                chunks.append(Array(rest.prefix(n)))
                rest = rest.dropFirst(n)
            }
            let whole = Self.outcome([bytes], limits: limits)
            let pieces = Self.outcome(chunks, limits: limits)
            let sameError = whole.1 == pieces.1
            #expect(whole.0 == pieces.0 && sameError,
                    "seed \(seed) iteration \(iteration): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if whole.0 != pieces.0 || !sameError { break }
            if whole.1 == nil { successes += 1 } else { failures += 1 }
        }
        // The mutations exercise both paths.
        #expect(failures > 20 && successes > 20, "seed \(seed): \(failures) failures, \(successes) successes")
    }
}
