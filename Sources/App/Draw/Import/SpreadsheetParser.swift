/// Why a whole spreadsheet import was refused (nothing of it is used). `line` is 1-based.
struct ImportError: Error, Equatable, Sendable {
    enum Kind: String, Sendable {
        case tooLarge = "import_too_large"
        case fieldTooLarge = "import_field_too_large"
        case tooManyColumns = "import_too_many_columns"
        case tooManyRows = "import_too_many_rows"
        case badEncoding = "import_bad_encoding"
        case unterminatedQuote = "import_unterminated_quote"
        case empty = "import_empty"
    }

    let kind: Kind
    let line: Int?

    var code: String { kind.rawValue }
}

enum ImportLimits {
    /// Bytes of one import (a file or a paste).
    static let maxBytes = 16 << 20
    /// Bytes of one field (a cell), quoted or not.
    static let maxFieldBytes = 1_000
    static let maxColumns = 100
    /// Data rows (blank lines not counted); the engine's list limit.
    static let maxRows = 100_000
}

/// RFC 4180 records from pasted TSV or uploaded CSV, fed in chunks of any size: a byte state
/// machine that returns whole rows as soon as they end and enforces each limit the moment it
/// is knowable. UTF-8 with or without BOM (other encodings are decoded first: `SpreadsheetEncoding`); CRLF, LF or CR line ends; quoted fields may hold
/// separators, line breaks and doubled quotes. The separator is the first tab, `;` or `,`
/// outside quotes on the first row (none: one column). Rows are raw bytes per field, so UTF-8
/// is checked once per field by the caller.
struct SpreadsheetParser {
    struct Row: Equatable, Sendable {
        /// The physical line the row starts on (1-based).
        let line: Int
        let fields: [[UInt8]]
    }

    private enum State {
        case fieldStart, unquoted, quoted, quoteInQuoted, afterCR
    }

    private(set) var separator: UInt8?
    private var separatorKnown = false
    private var state = State.fieldStart
    private var field = [UInt8]()
    private var fields = [[UInt8]]()
    private var line = 1
    private var rowLine = 1
    private var total = 0
    /// The first bytes, held until it is known whether they are a BOM.
    private var head = [UInt8]()
    private var headDone = false
    private let maxBytes: Int

    /// `maxBytes`: the most the input may hold (more for text decoded to UTF-8, which may grow).
    init(maxBytes: Int = ImportLimits.maxBytes) {
        self.maxBytes = maxBytes
    }

    /// Parses `bytes` and returns the rows completed by them.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(ImportError) -> [Row] {
        total += bytes.count
        guard total <= maxBytes else { throw ImportError(kind: .tooLarge, line: nil) }
        var rows = [Row]()
        if !headDone {
            head.append(contentsOf: bytes)
            guard head.count >= 3 else { return [] }
            try takeHead(into: &rows)
            return rows
        }
        for byte in bytes { try step(byte, into: &rows) }
        return rows
    }

    /// The end of the input: the last row, if it did not end with a line break.
    mutating func finish() throws(ImportError) -> [Row] {
        var rows = [Row]()
        if !headDone { try takeHead(into: &rows) }
        switch state {
        case .quoted: throw ImportError(kind: .unterminatedQuote, line: rowLine)
        case .fieldStart where fields.isEmpty, .afterCR: break
        default: try endRow(into: &rows)
        }
        return rows
    }

    private mutating func takeHead(into rows: inout [Row]) throws(ImportError) {
        headDone = true
        let bytes = head.starts(with: [0xef, 0xbb, 0xbf]) ? Array(head.dropFirst(3)) : head
        head = []
        for byte in bytes { try step(byte, into: &rows) }
    }

    private mutating func isSeparator(_ byte: UInt8) -> Bool {
        if separatorKnown { return byte == separator }
        if byte == 0x09 || byte == 0x3b || byte == 0x2c {
            separator = byte
            separatorKnown = true
            return true
        }
        return false
    }

    private mutating func step(_ byte: UInt8, into rows: inout [Row]) throws(ImportError) {
        switch state {
        case .fieldStart, .afterCR:
            if state == .afterCR {
                state = .fieldStart
                if byte == 0x0a { return }
            }
            if byte == 0x22 {
                state = .quoted
            } else if byte == 0x0d || byte == 0x0a {
                try endRow(into: &rows)
                if byte == 0x0d { state = .afterCR }
            } else if isSeparator(byte) {
                try endField()
            } else {
                try append(byte)
                state = .unquoted
            }
        case .unquoted:
            if byte == 0x0d || byte == 0x0a {
                try endRow(into: &rows)
                state = byte == 0x0d ? .afterCR : .fieldStart
            } else if isSeparator(byte) {
                try endField()
                state = .fieldStart
            } else {
                try append(byte)
            }
        case .quoted:
            if byte == 0x22 {
                state = .quoteInQuoted
            } else {
                if byte == 0x0d || (byte == 0x0a && field.last != 0x0d) { line += 1 }  // CRLF counts once
                try append(byte)
            }
        case .quoteInQuoted:
            if byte == 0x22 {
                try append(byte)
                state = .quoted
            } else if byte == 0x0d || byte == 0x0a {
                try endRow(into: &rows)
                state = byte == 0x0d ? .afterCR : .fieldStart
            } else if isSeparator(byte) {
                try endField()
                state = .fieldStart
            } else {
                // Text after a closing quote (`"a"b`): kept, as spreadsheets do.
                try append(byte)
                state = .unquoted
            }
        }
    }

    private mutating func append(_ byte: UInt8) throws(ImportError) {
        guard field.count < ImportLimits.maxFieldBytes else { throw ImportError(kind: .fieldTooLarge, line: rowLine) }
        field.append(byte)
    }

    private mutating func endField() throws(ImportError) {
        guard fields.count < ImportLimits.maxColumns else { throw ImportError(kind: .tooManyColumns, line: rowLine) }
        fields.append(field)
        field = []
    }

    private mutating func endRow(into rows: inout [Row]) throws(ImportError) {
        try endField()
        if fields.count > 1 || !fields[0].isEmpty {
            // The first row with content decides the separator: with none seen there is one column.
            separatorKnown = true
            rows.append(Row(line: rowLine, fields: fields))
        }
        fields = []
        line += 1
        rowLine = line
    }
}
