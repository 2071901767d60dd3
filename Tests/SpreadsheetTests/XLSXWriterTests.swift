import Compression
import Testing
@testable import Spreadsheet

/// The workbook's parts and the sheet's cells as written (openpyxl reads whole files in
/// Tests/peers/test_xlsx_export.py).
@Suite struct XLSXWriterTests {
    func parts(_ workbook: [UInt8]) throws -> [String: String] {
        var parts: [String: String] = [:]
        for entry in try ZipWriterTests.read(workbook) { parts[entry.name] = String(decoding: entry.data, as: UTF8.self) }
        return parts
    }

    @Test func theWorkbookHasTheMinimalParts() throws {
        let book = try XLSXWriter.workbook(sheetName: "Winners", header: ["name"], rows: [[.text("Ada")]])
        let parts = try parts(book)
        #expect(Set(parts.keys) == ["[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/_rels/workbook.xml.rels",
                                    "xl/styles.xml", "xl/worksheets/sheet1.xml"])
        #expect(parts["xl/workbook.xml"]!.contains(#"<sheet name="Winners" sheetId="1" r:id="rId1"/>"#))
        #expect(parts["[Content_Types].xml"]!.contains(#"PartName="/xl/worksheets/sheet1.xml""#))
        // The header row is bold (style 1: font 1, `<b/>`).
        #expect(parts["xl/worksheets/sheet1.xml"]!.contains(#"<c r="A1" s="1" t="inlineStr"><is><t xml:space="preserve">name</t></is></c>"#))
        #expect(parts["xl/styles.xml"]!.contains("<font><b/>"))
    }

    @Test func textIsEscapedAndNeverAFormula() {
        let sheet = String(decoding: XLSXWriter.sheetXML(header: ["h"], rows: [
            [.text("=HYPERLINK(\"http://x\")"), .text("a<b>&c"), .text("+1"), .text("-2"), .text("@SUM(A1)")],
        ]), as: UTF8.self)
        #expect(!sheet.contains("<f>"))
        #expect(sheet.contains(#"<c r="A2" t="inlineStr"><is><t xml:space="preserve">=HYPERLINK(&quot;http://x&quot;)</t></is></c>"#))
        #expect(sheet.contains(">a&lt;b&gt;&amp;c<"))
        #expect(sheet.contains(">+1<") && sheet.contains(">-2<") && sheet.contains(">@SUM(A1)<"))
    }

    @Test func charactersXMLForbidsAreReplacedAndTheRestKept() {
        #expect(XMLText.escaped("a\u{0}b\u{1}c\u{8}d\u{B}e\u{C}f\u{1F}g\u{FFFE}h\u{FFFF}") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}g\u{FFFD}h\u{FFFD}")
        #expect(XMLText.escaped("tab\there\nline") == "tab\there\nline")
        #expect(XMLText.escaped("cr\r\nlf") == "cr&#13;\nlf")
        #expect(XMLText.escaped("王小明 🎉 Zoë") == "王小明 🎉 Zoë")
        // `_x0041_` would be read back as "A": its underscore is escaped so it stays literal.
        #expect(XMLText.escaped("_x0041_ and _x12_ and _xZZZZ_") == "_x005F_x0041_ and _x12_ and _xZZZZ_")
    }

    @Test func longTextIsCutAtWholeCharacters() {
        let long = String(repeating: "🎉", count: 20_000) // 40,000 UTF-16 units
        let cut = XMLText.clipped(long)
        #expect(cut.utf16.count == 32_766 && cut.unicodeScalars.allSatisfy { $0 == "🎉" })
        #expect(XMLText.clipped("short") == "short")
    }

    @Test func numbersAreNumbersAndTimesAreDates() {
        let sheet = String(decoding: XLSXWriter.sheetXML(header: ["a", "b", "c", "d", "e"], rows: [
            [.integer(42), .number(0.5), .integer(1_234_567_890_123_456_789), .time(millis: 0, utcOffsetSeconds: 3600), .empty],
        ]), as: UTF8.self)
        #expect(sheet.contains(#"<c r="A2"><v>42</v></c>"#))
        #expect(sheet.contains(#"<c r="B2"><v>0.5</v></c>"#))
        // Past 15 digits a spreadsheet would round it: text.
        #expect(sheet.contains(#"<c r="C2" t="inlineStr"><is><t>1234567890123456789</t></is></c>"#))
        // 1970-01-01 01:00 wall clock at UTC+1: serial 25569 + 1/24, style 2 (the date format).
        #expect(sheet.contains(#"<c r="D2" s="2"><v>\#(25_569 + 1.0 / 24)</v></c>"#))
        #expect(!sheet.contains(#"r="E2""#))
    }

    @Test func serialDaysCountFrom1899() {
        #expect(SheetCell.serialDay(millis: 0, utcOffsetSeconds: 0) == 25_569)
        // 2026-12-04 12:00:00.500 UTC at UTC+8.
        let millis: Int64 = 1_796_385_600_500
        #expect(abs(SheetCell.serialDay(millis: millis, utcOffsetSeconds: 8 * 3600) - (Double(millis) / 86_400_000 + 25_569 + 8.0 / 24)) < 1e-9)
    }

    @Test func columnsAndSheetNames() {
        #expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(XLSXWriter.columnName) == ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"])
        #expect(XLSXWriter.safeSheetName("a/b[c]:d*e?f\\g") == "a_b_c__d_e_f_g")
        #expect(XLSXWriter.safeSheetName("'quoted'") == "quoted")
        #expect(XLSXWriter.safeSheetName(String(repeating: "x", count: 40)).count == 31)
        #expect(XLSXWriter.safeSheetName("") == "Sheet1")
    }
}
