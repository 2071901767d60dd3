/// The draws of an event (issue #41): from the draw asked for, the draws its `excludeWinnersOf`
/// links, theirs, and so on, each once (a cycle ends where it meets a draw already reached),
/// reading at most `bound` draws. Pure: the caller reads each draw (`next`, then `read`), so the
/// walk can be driven by callbacks (`EventPack`) or by a dictionary (tests).
struct EventWalk: Sendable, Equatable {
    /// How many draws an event pack reads at most: a chain longer than that is an attack or a
    /// mistake, and each draw costs an export and an audit log.
    static let most = 50

    let bound: Int
    /// The draws read, in the order they were reached (the first is the one asked for).
    private(set) var found: [String] = []
    /// The draws each found draw links (excludes the winners of), in its own order.
    private(set) var links: [String: [String]] = [:]
    /// Linked draws that are not there (deleted, or never stored).
    private(set) var missing: [String] = []
    /// Linked draws past the bound, not read.
    private(set) var leftOut: [String] = []
    private var queue: [String]
    private var seen: Set<String>

    init(from code: String, bound: Int = most) {
        self.bound = max(1, bound)
        queue = [code]
        seen = [code]
    }

    /// The next draw to read, or nil when the walk is done.
    mutating func next() -> String? {
        queue.isEmpty ? nil : queue.removeFirst()
    }

    /// What reading `code` gave: the draws it links, or nil when there is no such draw.
    mutating func read(_ code: String, links linked: [String]?) {
        guard let linked else { return missing.append(code) }
        found.append(code)
        var own: [String] = []
        for link in linked where !own.contains(link) { own.append(link) }
        links[code] = own
        for link in own where !seen.contains(link) {
            seen.insert(link)
            // Every draw read or queued counts, the missing ones too: the bound is on reads.
            if found.count + missing.count + queue.count < bound { queue.append(link) } else { leftOut.append(link) }
        }
    }

    /// The whole walk at once, `links` answering for each draw (nil: no such draw).
    static func walk(from code: String, bound: Int = most, links: (String) -> [String]?) -> EventWalk {
        var walk = EventWalk(from: code, bound: bound)
        while let next = walk.next() { walk.read(next, links: links(next)) }
        return walk
    }
}
