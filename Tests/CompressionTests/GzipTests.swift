import Compression
import Testing

@Suite struct GzipTests {
    /// CRC-32 (ISO 3309, as RFC 1952 §8 gives it), bit by bit: independent of zlib's tables.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test(arguments: [0, 1, 1000, 300_000])
    func writesAGzipMemberWhoseBodyAndTrailerCheckOut(_ count: Int) throws {
        let input = DeflateInflateTests.sample(count: count, seed: 3)
        let member = gzipCompress(input)
        // RFC 1952 §2.3: ID1 ID2 CM=8 (deflate), 10-byte header, CRC32 and ISIZE at the end.
        #expect(Array(member.prefix(3)) == [0x1f, 0x8b, 0x08])
        #expect(member.count >= 18)
        #expect(Self.littleEndian(member[(member.count - 8)..<(member.count - 4)]) == Self.crc32(input))
        #expect(Self.littleEndian(member[(member.count - 4)...]) == UInt32(truncatingIfNeeded: count))
        var output: [UInt8] = []
        try InflateStream().inflate(member[10..<(member.count - 8)], into: &output, limit: count + 1)
        #expect(output == input)
    }

    @Test func compressesRepetitiveText() {
        let page = Array(String(repeating: "<li class=\"prize\">Prize</li>\n", count: 500).utf8)
        #expect(gzipCompress(page).count < page.count / 20)
    }
}
