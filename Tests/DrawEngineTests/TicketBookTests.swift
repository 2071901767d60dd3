import JSON
import Testing
@testable import DrawEngine

/// Ticket books (docs/FAIRNESS.md §3, "Ticket books"): a pool of named, coloured ranges drawn as
/// the list of their tickets, the books hashed with the names and checked by the verifier.
@Suite struct TicketBookTests {
    private static let books = [
        TicketBook(name: " red ", from: 1, to: 500, color: "#C62828"),
        TicketBook(name: "blue", from: 1, to: 500, color: "#1565c0"),
        TicketBook(name: "绿", from: 0, to: 299, color: "#2e7d32"),
    ]

    @Test func booksNormalizeAndNumberTheirTickets() throws {
        let checked = try TicketBook.validate(Self.books)
        #expect(checked.books[0] == TicketBook(name: "red", from: 1, to: 500, color: "#c62828"))
        #expect(checked.tickets.count == 1300)
        #expect(checked.tickets[0] == "red 1" && checked.tickets[500] == "blue 1" && checked.tickets[1299] == "绿 299")
        func refused(_ books: [TicketBook]) -> DrawError? {
            do { _ = try TicketBook.validate(books); return nil } catch { return error }
        }
        #expect(refused([]) == .badBook)
        #expect(refused([TicketBook(name: "red", from: 1, to: 5, color: "red")]) == .badBook)
        #expect(refused([TicketBook(name: "red", from: 5, to: 1, color: "#ff0000")]) == .badBook)
        #expect(refused([TicketBook(name: "red", from: -1, to: 1, color: "#ff0000")]) == .badBook)
        #expect(refused([TicketBook(name: "a", from: 1, to: 2, color: "#ff0000"), TicketBook(name: "a", from: 3, to: 4, color: "#00ff00")]) == .badBook)
        #expect(refused([TicketBook(name: "a", from: 1, to: 1, color: "#ff0000")]) == .poolTooSmall)
        #expect(refused([TicketBook(name: "a", from: 1, to: 100_001, color: "#ff0000")]) == .tooManyEntrants)
    }

    @Test func aBooksRoundVerifiesAndTheBooksAreInTheHash() throws {
        var config = DrawConfig(pool: .books(Self.books), exclude: [.name("blue 7")], perStop: .count(5))
        var harness = try Harness(config, seed: 45)
        let winners = try harness.round()
        #expect(winners.count == 5)
        let tickets = TicketBook.tickets(try TicketBook.validate(Self.books).books)
        #expect(winners.allSatisfy { tickets.contains($0.description) } && !winners.contains(.name("blue 7")))
        #expect(harness.verify().passed)
        guard case .entrants(let hash, let names, nil, nil, let books?) = harness.records.first(where: { $0.kind == "entrants" })?.body
        else { Issue.record("no books in the entrants record"); return }
        let object = JSONValue.object(["names": .array(names.map { .string($0) }), "books": .array(books.map(\.json))])
        #expect(hash == Hashing.sha256Hex(object.canonicalBytes) && names == tickets)
        // The settings read back as they were written (the API's JSON).
        config = try Draw(config: config).config
        #expect(try DrawConfig(json: config.json) == config)

        // Another colour with the hashes fixed up: the chain holds, the books no longer fit the
        // pool the round locked.
        var json = harness.records.map(\.json)
        let e = harness.records.firstIndex { $0.kind == "entrants" }!
        guard var members = json[e].objectValue else { Issue.record("not an object"); return }
        var recoloured = books
        recoloured[1].color = "#c62828"
        members["books"] = .array(recoloured.map(\.json))
        members["entrantsHash"] = .string(EntrantList.hash(names: names, tickets: nil, groups: nil, books: recoloured))
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        json[e] = .object(members)
        #expect(!RoundVerifier.verify(records: json).passed)
        // Books that do not number the names fail on the entrants record itself.
        var shifted = books
        shifted[0].from = 2
        shifted[0].to = 501
        members["books"] = .array(shifted.map(\.json))
        members["entrantsHash"] = .string(EntrantList.hash(names: names, tickets: nil, groups: nil, books: shifted))
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        json[e] = .object(members)
        let report = RoundVerifier.verify(records: json)
        #expect(report.checks.contains { $0.problem == "books" })
    }
}
