import Compression
import Testing

/// The ZIP container of the `.xlsx` downloads, read back field by field as a reader would:
/// the end record, the central directory, each local header and its data.
@Suite struct ZipWriterTests {
    @Test func crc32MatchesTheCheckValues() {
        #expect(crc32Checksum([]) == 0)
        // The CRC-32/ISO-HDLC check value (and the one every zip tool computes).
        #expect(crc32Checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(crc32Checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    struct Entry: Equatable {
        var name: String
        var flags: Int
        var method: UInt16
        var crc: UInt32
        var data: [UInt8]
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    /// Reads an archive through its central directory (never by scanning local headers).
    static func read(_ zip: [UInt8]) throws -> [Entry] {
        let end = zip.count - 22
        #expect(u32(zip, end) == 0x0605_4B50)
        let count = u16(zip, end + 10)
        #expect(u16(zip, end + 8) == count)
        let size = Int(u32(zip, end + 12)), start = Int(u32(zip, end + 16))
        #expect(start + size == end)
        var entries = [Entry]()
        var at = start
        for _ in 0..<count {
            #expect(u32(zip, at) == 0x0201_4B50)
            let flags = u16(zip, at + 8)
            let method = UInt16(u16(zip, at + 10))
            let crc = u32(zip, at + 16)
            let compressed = Int(u32(zip, at + 20)), plain = Int(u32(zip, at + 24))
            let nameLength = u16(zip, at + 28), extra = u16(zip, at + 30), comment = u16(zip, at + 32)
            let offset = Int(u32(zip, at + 42))
            let name = String(decoding: zip[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            at += 46 + nameLength + extra + comment
            // The local header says the same.
            #expect(u32(zip, offset) == 0x0403_4B50)
            #expect(u16(zip, offset + 6) == flags)
            #expect(UInt16(u16(zip, offset + 8)) == method)
            #expect(u32(zip, offset + 14) == crc)
            #expect(Int(u32(zip, offset + 18)) == compressed && Int(u32(zip, offset + 22)) == plain)
            #expect(u16(zip, offset + 26) == nameLength)
            let dataStart = offset + 30 + nameLength + u16(zip, offset + 28)
            let stored = Array(zip[dataStart..<(dataStart + compressed)])
            var data = stored
            if method == 8 {
                let inflate = try InflateStream(windowBits: 15)
                data = []
                try inflate.inflate(stored, into: &data, limit: plain + 1)
            } else {
                #expect(method == 0)
            }
            #expect(data.count == plain)
            #expect(crc32Checksum(data) == crc)
            entries.append(Entry(name: name, flags: flags, method: method, crc: crc, data: data))
        }
        #expect(at == end)
        return entries
    }

    @Test func entriesComeBackThroughTheCentralDirectory() throws {
        let sheet = Array(String(repeating: "<row><c><v>1</v></c></row>", count: 2_000).utf8)
        let tiny: [UInt8] = Array("ab".utf8)
        var zip = ZipWriter()
        try zip.add("xl/worksheets/sheet1.xml", sheet)
        try zip.add("tiny", tiny)
        try zip.add("empty", [])
        try zip.add("名单.txt", Array("名单".utf8))
        let archive = try zip.finish()
        let entries = try Self.read(archive)
        #expect(entries.map(\.name) == ["xl/worksheets/sheet1.xml", "tiny", "empty", "名单.txt"])
        #expect(entries.map(\.data) == [sheet, tiny, [], Array("名单".utf8)])
        // Compressible text is deflated; two bytes would only grow, so they are stored.
        #expect(entries.map(\.method) == [8, 0, 0, 0])
        #expect(archive.count < sheet.count / 10)
        // A UTF-8 name sets general purpose bit 11.
        #expect(entries.map(\.flags) == [0, 0, 0, 0x0800])
    }

    @Test func theSameContentGivesTheSameBytes() throws {
        func make() throws -> [UInt8] {
            var zip = ZipWriter()
            try zip.add("a.xml", Array("<a/>".utf8))
            return try zip.finish()
        }
        #expect(try make() == make())
    }

    @Test func anEmptyArchiveIsJustTheEndRecord() throws {
        let archive = try ZipWriter().finish()
        #expect(archive.count == 22)
        #expect(try Self.read(archive).isEmpty)
    }
}
