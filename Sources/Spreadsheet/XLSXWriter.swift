import Compression

/// A one-sheet Office Open XML workbook (`.xlsx`, ECMA-376), the smallest set of parts Excel,
/// LibreOffice, Numbers and openpyxl open: `[Content_Types].xml`, `_rels/.rels`,
/// `xl/workbook.xml` and its `_rels`, `xl/styles.xml` (a bold header row, a date format) and
/// `xl/worksheets/sheet1.xml`. Text is written as inline strings (`t="inlineStr"`), which a
/// spreadsheet never evaluates: a name such as `=HYPERLINK(…)` stays text, with no `'` before it
/// (a cell is a formula only when it has an `<f>` element, and none is ever written). The header
/// row is frozen so it stays in view.
public enum XLSXWriter {
    /// The media type of the download.
    public static let contentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

    /// The workbook: sheet `sheetName` with `header` (bold) and `rows`.
    public static func workbook(sheetName: String, header: [String], rows: [[SheetCell]]) throws(ZipWriter.Failure) -> [UInt8] {
        var zip = ZipWriter()
        try zip.add("[Content_Types].xml", Array(contentTypes.utf8))
        try zip.add("_rels/.rels", Array(packageRelationships.utf8))
        try zip.add("xl/workbook.xml", Array(workbookXML(sheetName: sheetName).utf8))
        try zip.add("xl/_rels/workbook.xml.rels", Array(workbookRelationships.utf8))
        try zip.add("xl/styles.xml", Array(styles.utf8))
        try zip.add("xl/worksheets/sheet1.xml", sheetXML(header: header, rows: rows))
        return try zip.finish()
    }

    static let declaration = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
    static let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    static let relationshipTypes = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

    static let contentTypes = declaration + """
        <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
        <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
        <Default Extension="xml" ContentType="application/xml"/>\
        <Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>\
        <Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>\
        <Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>\
        </Types>
        """

    static let packageRelationships = declaration + """
        <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
        <Relationship Id="rId1" Type="\(relationshipTypes)/officeDocument" Target="xl/workbook.xml"/>\
        </Relationships>
        """

    static let workbookRelationships = declaration + """
        <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
        <Relationship Id="rId1" Type="\(relationshipTypes)/worksheet" Target="worksheets/sheet1.xml"/>\
        <Relationship Id="rId2" Type="\(relationshipTypes)/styles" Target="styles.xml"/>\
        </Relationships>
        """

    /// Style 0: plain; 1: bold (the header); 2: a date and time.
    static let styles = declaration + """
        <styleSheet xmlns="\(main)">\
        <numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts>\
        <fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>\
        <fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>\
        <borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>\
        <cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>\
        <cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>\
        <xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>\
        <xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>\
        <cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>\
        </styleSheet>
        """

    static func workbookXML(sheetName: String) -> String {
        declaration + """
            <workbook xmlns="\(main)" xmlns:r="\(relationshipTypes)">\
            <sheets><sheet name="\(XMLText.escaped(safeSheetName(sheetName)))" sheetId="1" r:id="rId1"/></sheets>\
            </workbook>
            """
    }

    /// A sheet name Excel accepts: 1–31 characters, none of `[ ] : * ? / \`, not starting or
    /// ending with `'`.
    static func safeSheetName(_ name: String) -> String {
        var cleaned = String(name.map { "[]:*?/\\".contains($0) ? "_" : $0 }.prefix(31))
        while cleaned.hasPrefix("'") { cleaned.removeFirst() }
        while cleaned.hasSuffix("'") { cleaned.removeLast() }
        return cleaned.isEmpty ? "Sheet1" : cleaned
    }

    static func sheetXML(header: [String], rows: [[SheetCell]]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256 + rows.count * 64 * max(1, header.count))
        func emit(_ text: String) { out += text.utf8 }
        emit(declaration)
        emit(#"<worksheet xmlns="\#(main)">"#)
        emit(#"<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>"#
             + "</sheetView></sheetViews>")
        let widths = columnWidths(header: header, rows: rows)
        if !widths.isEmpty {
            emit("<cols>")
            for (index, width) in widths.enumerated() {
                emit(#"<col min="\#(index + 1)" max="\#(index + 1)" width="\#(width)" customWidth="1"/>"#)
            }
            emit("</cols>")
        }
        emit("<sheetData>")
        emitRow(1, header.map { SheetCell.text($0) }, style: 1, into: &out)
        for (index, row) in rows.enumerated() { emitRow(index + 2, row, style: nil, into: &out) }
        emit("</sheetData></worksheet>")
        return out
    }

    private static func emitRow(_ number: Int, _ cells: [SheetCell], style: Int?, into out: inout [UInt8]) {
        out += #"<row r="\#(number)">"#.utf8
        for (column, cell) in cells.enumerated() {
            let reference = columnName(column) + String(number)
            let styled = style.map { #" s="\#($0)""# } ?? ""
            switch cell {
            case .empty:
                continue
            case .text(let text):
                out += #"<c r="\#(reference)"\#(styled) t="inlineStr"><is><t xml:space="preserve">"#.utf8
                out += XMLText.escaped(XMLText.clipped(text)).utf8
                out += "</t></is></c>".utf8
            case .integer(let value) where value.magnitude >= 1_000_000_000_000_000:
                out += #"<c r="\#(reference)"\#(styled) t="inlineStr"><is><t>\#(value)</t></is></c>"#.utf8
            case .integer(let value):
                out += #"<c r="\#(reference)"\#(styled)><v>\#(value)</v></c>"#.utf8
            case .number(let value) where !value.isFinite:
                continue
            case .number(let value):
                out += #"<c r="\#(reference)"\#(styled)><v>\#(value)</v></c>"#.utf8
            case .time(let millis, let offset):
                out += #"<c r="\#(reference)" s="2"><v>\#(SheetCell.serialDay(millis: millis, utcOffsetSeconds: offset))</v></c>"#.utf8
            }
        }
        out += "</row>".utf8
    }

    /// A1-style column letters: 0 → A, 25 → Z, 26 → AA.
    static func columnName(_ index: Int) -> String {
        var index = index
        var name = ""
        repeat {
            name.insert(Character(Unicode.Scalar(UInt8(65 + index % 26))), at: name.startIndex)
            index = index / 26 - 1
        } while index >= 0
        return name
    }

    /// Widths in characters from the header and the first 1,000 rows (a wide character counts
    /// two), 8 to 60: a sheet that opens readable without the reader widening every column.
    static func columnWidths(header: [String], rows: [[SheetCell]]) -> [Int] {
        var widths = header.map(displayWidth)
        for row in rows.prefix(1000) {
            for (column, cell) in row.enumerated() {
                let width: Int
                switch cell {
                case .empty: width = 0
                case .text(let text): width = displayWidth(text)
                case .integer(let value): width = String(value).count
                case .number(let value): width = min(String(value).count, 15)
                case .time: width = 19
                }
                if column < widths.count { widths[column] = max(widths[column], width) } else { widths.append(width) }
            }
        }
        return widths.map { min(60, max(8, $0 + 2)) }
    }

    private static func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 ? 2 : 1) }
    }
}
