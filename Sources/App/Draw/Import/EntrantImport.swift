import JSON
import DrawEngine

/// A spreadsheet of entrants turned into a preview (docs/openapi.yaml, `ImportPreview`): the
/// header row mapped to name / id / tickets / group, each data row checked by the engine's
/// rules, duplicates found. Pure; the REST endpoint and the benchmark call `preview(of:)`.
struct EntrantImport: Sendable {
    enum DuplicatePolicy: String, Sendable {
        /// A repeated name or id is a rejected row (the first one stays).
        case reject
        /// A repeated name (same id and group, or none) adds its tickets to the first row.
        case merge
    }

    struct Rejected: Equatable, Sendable {
        let line: Int
        /// `empty_name`, `bad_name`, `bad_tickets`, `bad_group`, `bad_id`, `duplicate_name`,
        /// `duplicate_id`, `merge_conflict`.
        let reason: String
    }

    struct Duplicate: Equatable, Sendable {
        let name: String
        /// Lines of the later rows with the name (or id) of an earlier one.
        let lines: [Int]
    }

    struct Preview: Sendable {
        /// "tab", "comma", "semicolon" or "none".
        let separator: String
        /// What the file was saved as ("utf-8", "utf-16le", "utf-16be", "gb18030").
        let encoding: SpreadsheetEncoding
        /// Column index of each mapped field; nil when the file has no such column.
        let columns: [String: Int]
        let header: Bool
        let entrants: [Entrant]
        let duplicates: [Duplicate]
        let rejected: [Rejected]
        let rejectedCount: Int
        /// Sum of all accepted tickets.
        let tickets: Int
    }

    static let maxListed = 100
    static let headerNames: [String: [String]] = [
        "name": ["name", "names", "full name", "entrant", "participant", "姓名", "名字", "名称", "参与者"],
        "id": ["id", "entrant id", "employee id", "employee", "number", "no", "no.", "编号", "工号"],
        "tickets": ["tickets", "ticket", "weight", "entries", "票数", "权重"],
        "group": ["group", "team", "department", "dept", "type", "ticket type", "分组", "部门", "组"],
    ]

    /// The whole input at once (the endpoint's body), in any `SpreadsheetEncoding`: a BOM names
    /// it; without one the text is UTF-8, or GB18030 when it is not valid UTF-8 (as Chinese
    /// Excel saves CSV). Text valid in neither refuses the import with `import_bad_encoding`.
    static func preview(of bytes: [UInt8], duplicates: DuplicatePolicy = .reject) throws(ImportError) -> Preview {
        guard bytes.count <= ImportLimits.maxBytes else { throw ImportError(kind: .tooLarge, line: nil) }
        let bom = SpreadsheetEncoding.byteOrderMark(of: bytes)
        if let bom, bom.encoding != .utf8 {
            return try preview(ofUTF8: bom.encoding.utf8(bytes.dropFirst(bom.length)), encoding: bom.encoding, duplicates: duplicates)
        }
        do {
            return try preview(ofUTF8: bytes, encoding: .utf8, duplicates: duplicates)
        } catch where error.kind == .badEncoding && bom == nil {
            // Not UTF-8 and no BOM: tried once as GB18030; if that fails too, the UTF-8 error (its line) stands.
            guard let text = try? SpreadsheetEncoding.gb18030.utf8(bytes[...]) else { throw error }
            return try preview(ofUTF8: text, encoding: .gb18030, duplicates: duplicates)
        }
    }

    private static func preview(ofUTF8 bytes: [UInt8], encoding: SpreadsheetEncoding,
                                duplicates: DuplicatePolicy) throws(ImportError) -> Preview {
        var builder = EntrantImport(duplicates: duplicates)
        // Room for every line up front: growing the name index 17 times cost a tenth of a 100,000-row import.
        builder.reserve(min(bytes.reduce(into: 0) { if $1 == 0x0a || $1 == 0x0d { $0 += 1 } } + 1, ImportLimits.maxRows))
        var parser = SpreadsheetParser(maxBytes: ImportLimits.maxBytes * SpreadsheetEncoding.maxGrowth)
        for row in try parser.feed(bytes) { try builder.add(row) }
        for row in try parser.finish() { try builder.add(row) }
        return try builder.finish(separator: parser.separator, encoding: encoding)
    }

    private let policy: DuplicatePolicy
    private var columns: [String: Int]? = nil
    private var header = false
    private var entrants = [Entrant]()
    private var byName = [DrawValue: Int]()
    private var byID = [DrawValue: Int]()
    private var duplicateLines = [DrawValue: [Int]]()
    private var duplicateOrder = [String]()
    private var rejected = [Rejected]()
    private var rejectedCount = 0
    private var rows = 0

    init(duplicates: DuplicatePolicy) {
        policy = duplicates
    }

    /// Expect about `rows` entrants.
    mutating func reserve(_ rows: Int) {
        entrants.reserveCapacity(rows)
        byName.reserveCapacity(rows)
    }

    /// Takes the next parsed row: the first maps the columns.
    mutating func add(_ row: SpreadsheetParser.Row) throws(ImportError) {
        var cells = [String]()
        cells.reserveCapacity(row.fields.count)
        for field in row.fields {
            guard let text = String(validating: field, as: UTF8.self) else { throw ImportError(kind: .badEncoding, line: row.line) }
            cells.append(text)
        }
        if columns == nil {
            // A first row naming a name column is the header; otherwise names are in column 1.
            let mapped = Self.mapHeader(cells)
            header = mapped["name"] != nil
            columns = header ? mapped : ["name": 0]
            if header { return }
        }
        try entrant(cells, line: row.line)
    }

    func finish(separator: UInt8?, encoding: SpreadsheetEncoding) throws(ImportError) -> Preview {
        guard let columns else { throw ImportError(kind: .empty, line: nil) }
        let names: [UInt8: String] = [0x09: "tab", 0x2c: "comma", 0x3b: "semicolon"]
        return Preview(
            separator: separator.flatMap { names[$0] } ?? "none", encoding: encoding, columns: columns, header: header, entrants: entrants,
            duplicates: duplicateOrder.prefix(Self.maxListed).map { Duplicate(name: $0, lines: duplicateLines[.name($0)] ?? []) },
            rejected: rejected, rejectedCount: rejectedCount, tickets: entrants.reduce(0) { $0 + $1.tickets })
    }

    /// Header cells (trimmed, lower-cased) to field → column; the first match of each wins.
    static func mapHeader(_ cells: [String]) -> [String: Int] {
        var mapped = [String: Int]()
        for (index, cell) in cells.enumerated() {
            let key = EntrantList.trim(cell).lowercased()
            for (field, names) in headerNames where mapped[field] == nil && names.contains(key) {
                mapped[field] = index
            }
        }
        return mapped
    }

    /// A name told apart by its id: full-width brackets after a Chinese name, "Anna Li (A-001)" otherwise.
    static func withID(_ name: String, _ id: String) -> String {
        let cjk = name.unicodeScalars.contains { (0x3400...0x9FFF).contains($0.value) || (0xF900...0xFAFF).contains($0.value) }
        return cjk ? "\(name)（\(id)）" : "\(name) (\(id))"
    }

    private mutating func reject(_ line: Int, _ reason: String) {
        rejectedCount += 1
        if rejected.count < Self.maxListed { rejected.append(Rejected(line: line, reason: reason)) }
    }

    private mutating func noteDuplicate(_ name: String, line: Int) {
        if duplicateLines[.name(name)] == nil { duplicateOrder.append(name) }
        if duplicateLines[.name(name), default: []].count < Self.maxListed { duplicateLines[.name(name), default: []].append(line) }
    }

    private mutating func entrant(_ cells: [String], line: Int) throws(ImportError) {
        rows += 1
        guard rows <= ImportLimits.maxRows else { throw ImportError(kind: .tooManyRows, line: line) }
        func cell(_ field: String) -> String? {
            guard let index = columns?[field], index < cells.count else { return nil }
            return EntrantList.trim(cells[index])
        }
        let name = cell("name") ?? ""
        guard !name.isEmpty else { return reject(line, "empty_name") }
        guard name.utf8.count <= DrawLimits.maxEntrantBytes, !EntrantList.hasControlCharacter(name) else { return reject(line, "bad_name") }
        var tickets = 1
        if let text = cell("tickets"), !text.isEmpty {
            guard text.utf8.count <= 7, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text),
                  (1...DrawLimits.maxTickets).contains(value) else { return reject(line, "bad_tickets") }
            tickets = value
        }
        let group = cell("group") ?? ""
        guard group.utf8.count <= DrawLimits.maxGroupBytes, !EntrantList.hasControlCharacter(group) else { return reject(line, "bad_group") }
        let id = cell("id") ?? ""
        guard id.utf8.count <= DrawLimits.maxIdBytes, !EntrantList.hasControlCharacter(id) else { return reject(line, "bad_id") }

        // Two people of one name whose id column differs (张伟, 工号) are two
        // entrants: each is named with its id, "张伟（A-001）", so the names differ as the pool
        // needs and the room can tell which one won.
        if let first = byName[.name(name)], !id.isEmpty, let earlierID = entrants[first].id, earlierID != id {
            if entrants[first].name == name {
                let apart = Self.withID(name, earlierID)
                guard byName[.name(apart)] == nil else { noteDuplicate(name, line: line); return reject(line, "duplicate_name") }
                entrants[first].name = apart
                byName[.name(apart)] = first
            }
            let own = Self.withID(name, id)
            guard own.utf8.count <= DrawLimits.maxEntrantBytes, entrants[first].name.utf8.count <= DrawLimits.maxEntrantBytes else {
                return reject(line, "bad_name")
            }
            guard byName[.name(own)] == nil, byID[.name(id)] == nil else { noteDuplicate(name, line: line); return reject(line, "duplicate_id") }
            byName[.name(own)] = entrants.count
            byID[.name(id)] = entrants.count
            entrants.append(Entrant(name: own, id: id, tickets: tickets, group: group.isEmpty ? nil : group))
            return
        }
        if let first = byName[.name(name)] {
            noteDuplicate(name, line: line)
            let earlier = entrants[first]
            guard policy == .merge else { return reject(line, "duplicate_name") }
            guard (earlier.id ?? "") == id || id.isEmpty, (earlier.group ?? "").utf8.elementsEqual(group.utf8),
                  earlier.tickets + tickets <= DrawLimits.maxTickets else { return reject(line, "merge_conflict") }
            entrants[first].tickets += tickets
            return
        }
        if !id.isEmpty, let first = byID[.name(id)] {
            noteDuplicate(entrants[first].name, line: line)
            return reject(line, "duplicate_id")
        }
        byName[.name(name)] = entrants.count
        if !id.isEmpty { byID[.name(id)] = entrants.count }
        entrants.append(Entrant(name: name, id: id.isEmpty ? nil : id, tickets: tickets, group: group.isEmpty ? nil : group))
    }
}
