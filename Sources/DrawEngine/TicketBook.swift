import JSON

/// One book of paper raffle tickets: `red 1–500` in the colour the tickets are printed in
/// (docs/FAIRNESS.md §3, "Ticket books"). A pool of books is drawn as the list of its tickets,
/// `"<name> <number>"`, book after book; the books themselves (colours included) are hashed
/// with that list, so the colour a page shows is the one the record fixed.
public struct TicketBook: Sendable, Equatable {
    public var name: String
    public var from: Int64
    public var to: Int64
    /// `#rrggbb`, lower-case after validation.
    public var color: String

    public init(name: String, from: Int64, to: Int64, color: String) {
        self.name = name
        self.from = from
        self.to = to
        self.color = color
    }

    /// `{"color","from","name","to"}`: as configured, stored and hashed.
    public var json: JSONValue {
        .object(["name": .string(name), "from": .int(from), "to": .int(to), "color": .string(color)])
    }

    /// A book as a record holds it: exactly the four keys (nil otherwise; values checked by `validate`).
    public init?(json: JSONValue) {
        guard let members = json.objectValue, Set(members.keys) == ["color", "from", "name", "to"],
              let name = json["name"]?.stringValue, let from = json["from"]?.intValue, let to = json["to"]?.intValue,
              let color = json["color"]?.stringValue else { return nil }
        self.init(name: name, from: from, to: to, color: color)
    }

    /// The ticket's text: the book's name, one space, the number in decimal.
    public func ticket(_ number: Int64) -> String { name + " " + String(number) }
}

extension TicketBook {
    /// Books' names are short labels ("red", "蓝色"): 1–40 bytes.
    public static let maxNameBytes = 40
    public static let maxBooks = 100
    /// Numbers printed on a ticket: 0…999,999,999.
    public static let maxNumber: Int64 = 999_999_999

    /// The books, normalized (names trimmed, colours lower-case) and checked: 1–100 books, names
    /// distinct (bytewise) without control characters, `0 ≤ from ≤ to ≤ 999,999,999`, colours
    /// `#rrggbb`, 2–100,000 tickets in all (`bad_book`, `pool_too_small`, `too_many_entrants`).
    /// Returns the books and their tickets in order.
    public static func validate(_ raw: [TicketBook]) throws(DrawError) -> (books: [TicketBook], tickets: [String]) {
        guard (1...maxBooks).contains(raw.count) else { throw .badBook }
        var books = [TicketBook]()
        var seen = Set<DrawValue>()
        var total: Int64 = 0
        for book in raw {
            let name = EntrantList.trim(book.name)
            guard !name.isEmpty, name.utf8.count <= maxNameBytes, !EntrantList.hasControlCharacter(name),
                  seen.insert(.name(name)).inserted, book.from >= 0, book.from <= book.to, book.to <= maxNumber,
                  let color = normalizedColor(book.color) else { throw .badBook }
            total += book.to - book.from + 1
            guard total <= Int64(DrawLimits.maxEntrants) else { throw .tooManyEntrants }
            books.append(TicketBook(name: name, from: book.from, to: book.to, color: color))
        }
        guard total >= 2 else { throw .poolTooSmall }
        return (books, tickets(books))
    }

    /// Every ticket of the books, book after book, each book's numbers ascending.
    public static func tickets(_ books: [TicketBook]) -> [String] {
        var out = [String]()
        for book in books where book.from <= book.to {
            for number in book.from...book.to { out.append(book.ticket(number)) }
        }
        return out
    }

    /// Whether a record's books are ones validation accepts unchanged and `names` are their tickets.
    public static func matches(_ books: [TicketBook], names: [String]) -> Bool {
        guard let checked = try? validate(books), checked.books == books else { return false }
        return checked.tickets == names
    }

    static func normalizedColor(_ text: String) -> String? {
        let lower = EntrantList.trim(text).lowercased()
        let hex = lower.utf8.dropFirst()
        guard lower.utf8.first == UInt8(ascii: "#"), hex.count == 6,
              hex.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        return lower
    }
}
