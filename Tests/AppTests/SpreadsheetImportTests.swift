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
        #expect(preview.entrants == [Entrant(name: "Ann", id: "E1", tickets: 3, group: "Sales"),
                                     Entrant(name: "Bob", id: "E2", tickets: 1, group: "IT"),
                                     Entrant(name: "Gus", id: "E9", tickets: 1, group: "Board")])
        #expect(preview.rejected == [
            .init(line: 4, reason: "empty_name"), .init(line: 5, reason: "bad_tickets"), .init(line: 6, reason: "duplicate_name"),
            .init(line: 7, reason: "duplicate_id"), .init(line: 8, reason: "bad_group"), .init(line: 9, reason: "bad_tickets"),
        ])
        #expect(preview.rejectedCount == 6 && preview.tickets == 5)
        #expect(preview.duplicates == [.init(name: "Ann", lines: [6, 7])])
        // What the preview accepts, the engine accepts.
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
