import DrawEngine
import Testing
@testable import App

/// The spreadsheet import (pasted TSV, uploaded CSV): the byte parser split at every offset, the
/// header mapping, the rows it rejects and why, duplicates, and the limits.
@Suite struct SpreadsheetImportTests {
    /// Rows of `bytes` fed in two chunks split at `cut` (nil: whole).
    private func rows(_ bytes: [UInt8], cut: Int? = nil) throws(ImportError) -> [SpreadsheetParser.Row] {
        var parser = SpreadsheetParser()
        var out = [SpreadsheetParser.Row]()
        if let cut {
            out += try parser.feed(bytes[..<cut])
            out += try parser.feed(bytes[cut...])
        } else {
            out += try parser.feed(bytes)
        }
        out += try parser.finish()
        return out
    }

    private func text(_ rows: [SpreadsheetParser.Row]) -> [[String]] {
        rows.map { $0.fields.map { String(decoding: $0, as: UTF8.self) } }
    }

    static let samples: [(String, [[String]], [Int])] = [
        ("name,tickets\r\nAnn,3\r\nBob,1\r\n", [["name", "tickets"], ["Ann", "3"], ["Bob", "1"]], [1, 2, 3]),
        ("\u{FEFF}Name;Group\nZoë;IT\n李雷;研发", [["Name", "Group"], ["Zoë", "IT"], ["李雷", "研发"]], [1, 2, 3]),
        ("name\tgroup\n\"Smith, John\"\tSales\n\"Q \"\"the\"\" \nman\"\tIT\n\nEve\t\n",
         [["name", "group"], ["Smith, John", "Sales"], ["Q \"the\" \nman", "IT"], ["Eve", ""]], [1, 2, 3, 6]),
        ("only\rone\rcolumn, with comma\r", [["only"], ["one"], ["column, with comma"]], [1, 2, 3]),
        ("a,\"b\r\nc\",d\r\ne,f,", [["a", "b\r\nc", "d"], ["e", "f", ""]], [1, 3]),
        ("x", [["x"]], [1]),
        ("\u{FEFF}", [], []),
        ("", [], []),
    ]

    @Test(arguments: samples.indices)
    func everySplitGivesTheSameRows(index: Int) throws {
        let (input, expected, lines) = Self.samples[index]
        let bytes = Array(input.utf8)
        let whole = try rows(bytes)
        #expect(text(whole) == expected)
        #expect(whole.map(\.line) == lines)
        for cut in 0...bytes.count {
            #expect(try rows(bytes, cut: cut) == whole, "split at \(cut)")
        }
        // Byte by byte too.
        var parser = SpreadsheetParser()
        var single = [SpreadsheetParser.Row]()
        for byte in bytes { single += try parser.feed([byte]) }
        single += try parser.finish()
        #expect(single == whole)
    }

    @Test func thePreviewMapsTheHeaderAndChecksEachRow() throws {
        let input = """
        Employee ID;Name;Tickets;Department
        E1;Ann;3;Sales
        E2;Bob;;IT
        E3;;2;IT
        E4;Cleo;zero;IT
        E5;Ann;1;Sales
        E1;Dai;1;IT
        E7;Eve;1000000;\("g" + String(repeating: "x", count: 100))
        E8;Finn;1000001;IT
        E9;"Gus";1;Board
        """
        let preview = try EntrantImport.preview(of: Array(input.utf8))
        #expect(preview.separator == "semicolon" && preview.header)
        #expect(preview.columns == ["id": 0, "name": 1, "tickets": 2, "group": 3])
        // Two Anns with their own ids (E1, E5) are two people, each named with the id (issue 39, item 11).
        #expect(preview.entrants == [Entrant(name: "Ann (E1)", id: "E1", tickets: 3, group: "Sales"),
                                     Entrant(name: "Bob", id: "E2", tickets: 1, group: "IT"),
                                     Entrant(name: "Ann (E5)", id: "E5", tickets: 1, group: "Sales"),
                                     Entrant(name: "Gus", id: "E9", tickets: 1, group: "Board")])
        #expect(preview.rejected == [
            .init(line: 4, reason: "empty_name"), .init(line: 5, reason: "bad_tickets"),
            .init(line: 7, reason: "duplicate_id"), .init(line: 8, reason: "bad_group"), .init(line: 9, reason: "bad_tickets"),
        ])
        #expect(preview.rejectedCount == 5 && preview.tickets == 6)
        #expect(preview.duplicates == [.init(name: "Ann (E1)", lines: [7])])
        // What the preview accepts, the engine accepts.
        #expect(throws: Never.self) { try Draw(config: DrawConfig(pool: .entries(preview.entrants))) }
    }

    /// Issue 39, item 11: two people of one name told apart by the staff-number column (工号)
    /// both enter, each named with it; the same name without an id, or with the same id, is
    /// still a repeated row.
    @Test func oneNameWithTwoStaffNumbersIsTwoEntrants() throws {
        let input = "姓名,工号\n张伟,A-001\n李娜,A-002\n张伟,A-003\n张伟,A-003\n李娜,\n"
        let preview = try EntrantImport.preview(of: Array(input.utf8))
        #expect(preview.entrants.map(\.name) == ["张伟（A-001）", "李娜", "张伟（A-003）"])
        #expect(preview.entrants.map(\.id) == ["A-001", "A-002", "A-003"])
        #expect(preview.rejected == [.init(line: 5, reason: "duplicate_id"), .init(line: 6, reason: "duplicate_name")])
        #expect(throws: Never.self) { try Draw(config: DrawConfig(pool: .entries(preview.entrants))) }
    }

    @Test func mergingAddsUpTheTicketsOfARepeatedName() throws {
        let input = "name\ttickets\tgroup\nAnn\t2\tIT\nBob\t1\t\nAnn\t3\tIT\nBob\t1\tSales\n"
        let preview = try EntrantImport.preview(of: Array(input.utf8), duplicates: .merge)
        #expect(preview.entrants == [Entrant(name: "Ann", tickets: 5, group: "IT"), Entrant(name: "Bob")])
        #expect(preview.rejected == [.init(line: 5, reason: "merge_conflict")])
        #expect(preview.duplicates.map(\.name) == ["Ann", "Bob"])
    }

    @Test func withoutANameHeaderTheFirstColumnHoldsNames() throws {
        let preview = try EntrantImport.preview(of: Array("Ann\nBob\n  \nCleo\n".utf8))
        #expect(!preview.header && preview.separator == "none")
        #expect(preview.entrants.map(\.name) == ["Ann", "Bob", "Cleo"])
    }

    /// "姓名,分组 / 李雷,研发 / Nguyễn Văn Ánh,Kế toán" as Chinese Excel saves it (GB18030, from
    /// Python's codec: two- and four-byte sequences).
    static let gb18030: [UInt8] = [
        0xd0, 0xd5, 0xc3, 0xfb, 0x2c, 0xb7, 0xd6, 0xd7, 0xe9, 0x0d, 0x0a, 0xc0, 0xee, 0xc0, 0xd7, 0x2c, 0xd1, 0xd0, 0xb7, 0xa2,
        0x0d, 0x0a, 0x4e, 0x67, 0x75, 0x79, 0x81, 0x36, 0x84, 0x31, 0x6e, 0x20, 0x56, 0x81, 0x30, 0x8c, 0x30, 0x6e, 0x20, 0x81,
        0x30, 0x86, 0x39, 0x6e, 0x68, 0x2c, 0x4b, 0x81, 0x36, 0x83, 0x35, 0x20, 0x74, 0x6f, 0xa8, 0xa2, 0x6e, 0x0d, 0x0a,
    ]
    static let officeText = "姓名,分组\r\n李雷,研发\r\nNguyễn Văn Ánh,Kế toán\r\n"

    private static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        ([0xfeff] + Array(text.utf16)).flatMap { unit in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xff)] : [UInt8(unit & 0xff), UInt8(unit >> 8)]
        }
    }

    @Test func officeEncodingsGiveTheEntrantsOfTheUTF8File() throws {
        let utf8 = try EntrantImport.preview(of: Array(Self.officeText.utf8))
        #expect(utf8.entrants == [Entrant(name: "李雷", id: nil, tickets: 1, group: "研发"),
                                  Entrant(name: "Nguyễn Văn Ánh", id: nil, tickets: 1, group: "Kế toán")])
        let files: [(SpreadsheetEncoding, [UInt8])] = [
            (.utf8, [0xef, 0xbb, 0xbf] + Array(Self.officeText.utf8)),
            (.utf16LE, Self.utf16(Self.officeText, bigEndian: false)),
            (.utf16BE, Self.utf16(Self.officeText, bigEndian: true)),
            (.gb18030, Self.gb18030),
        ]
        for (encoding, bytes) in files {
            let preview = try EntrantImport.preview(of: bytes)
            #expect(preview.encoding == encoding)
            #expect(preview.entrants == utf8.entrants, "\(encoding)")
            #expect(preview.columns == utf8.columns && preview.separator == "comma")
        }
    }

    @Test(arguments: [
        // Neither UTF-8 nor GB18030 (0xFF never starts a GB18030 character): the UTF-8 error's line.
        ([0x6e, 0x0a, 0x41, 0x0a, 0x42, 0xff, 0x0a], 3),
        // A GB18030 lead byte before a line break.
        (Array("姓名\nAnn\n".utf8) + [0x81, 0x0a], 3),
        // UTF-8 with its BOM is never read as GB18030.
        ([0xef, 0xbb, 0xbf, 0x6e, 0x0a, 0xc0, 0xee, 0x0a], 2),
        // UTF-16LE: a lone high surrogate on line 2; truncated in a code unit on line 3.
        ([0xff, 0xfe, 0x6e, 0x00, 0x0a, 0x00, 0x00, 0xd8, 0x41, 0x00], 2),
        ([0xfe, 0xff, 0x00, 0x6e, 0x00, 0x0d, 0x00, 0x0a, 0x00, 0x41, 0x00, 0x0a, 0x00], 3),
    ] as [([UInt8], Int)])
    func bytesValidInNoEncodingAreRefusedWithTheirLine(bytes: [UInt8], line: Int) {
        #expect(throws: ImportError(kind: .badEncoding, line: line)) { try EntrantImport.preview(of: bytes) }
    }

    @Test func limitsAreWholeImportErrors() throws {
        func error(_ bytes: [UInt8]) -> ImportError? {
            do { _ = try EntrantImport.preview(of: bytes); return nil } catch { return error }
        }
        #expect(error(Array("name\n\"Ann".utf8)) == ImportError(kind: .unterminatedQuote, line: 2))
        #expect(error(Array(("name\nAnn\n" + String(repeating: "x", count: 1_001) + "\n").utf8)) == ImportError(kind: .fieldTooLarge, line: 3))
        #expect(error(Array(("name" + String(repeating: ",c", count: 100) + "\n").utf8)) == ImportError(kind: .tooManyColumns, line: 1))
        #expect(error([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x41, 0xff, 0x0a]) == ImportError(kind: .badEncoding, line: 2))
        #expect(error(Array("\n\n\r\n".utf8)) == ImportError(kind: .empty, line: nil))
        var many = Array("name\n".utf8)
        for i in 0...ImportLimits.maxRows { many += Array("n\(i)\n".utf8) }
        #expect(error(many) == ImportError(kind: .tooManyRows, line: ImportLimits.maxRows + 2))
        var parser = SpreadsheetParser()
        #expect(throws: ImportError(kind: .tooLarge, line: nil)) { try parser.feed([UInt8](repeating: 0x61, count: ImportLimits.maxBytes + 1)) }
    }
}
