import DrawEngine
import JSON

/// A page of the board, asked for over REST (`BoardAPI`).
public struct BoardPageRequest: Sendable, Equatable {
    /// nil: the rounds' summaries (`GET …/rounds`); else that round's winners.
    public var round: Int?
    public var offset: Int
    public var limit: Int

    public init(round: Int? = nil, offset: Int, limit: Int, host: Bool = false) {
        self.round = round
        self.offset = offset
        self.limit = limit
        self.host = host
    }
    /// Whether the asker may see checked-in entrants' names whatever `publicNames` says (the host).
    public var host = false
}

/// What a board page request found: the page, or no such round on the board.
public enum BoardPageAnswer: Sendable, Equatable {
    case page(JSONValue)
    case unknownRound
}

extension DrawRoomState {
    /// The board as pages see it: while the slow-down runs, the round just stored is not announced yet.
    public var visibleBoard: ArraySlice<BoardRound> {
        draw.phase == .stopping ? draw.board.dropLast() : draw.board[...]
    }

    /// One page of the board (docs/PROTOCOL.md, "The board, paged"): a round's current winners in
    /// board order (`{"round","prize","prizeIndex","total","offset","limit","winners","voided"}`,
    /// plus `names` for a check-in pool), or the rounds' summaries newest first
    /// (`{"total","offset","limit","rounds"}`).
    public func boardPage(_ request: BoardPageRequest) -> BoardPageAnswer {
        let board = visibleBoard
        guard let number = request.round else {
            let newestFirst = board.reversed().dropFirst(request.offset).prefix(request.limit)
            let rounds = Array(newestFirst)
            var page: [String: JSONValue] = [
                "total": .int(Int64(board.count)), "offset": .int(Int64(request.offset)), "limit": .int(Int64(request.limit)),
                "rounds": .array(rounds.map { $0.summaryJSON() }),
            ]
            if hasEntrantNames { page["names"] = .object(entrantNames(rounds.flatMap { $0.winners.prefix(BoardSummary.winnersPerRound) + $0.voided.map(\.winner) }, host: request.host)) }
            return .page(.object(page))
        }
        guard let round = board.last(where: { $0.round == number }) else { return .unknownRound }
        let winners = Array(round.winners.dropFirst(request.offset).prefix(request.limit))
        var page: [String: JSONValue] = [
            "round": .int(Int64(round.round)),
            "prize": round.prize.map { .string($0) } ?? .null,
            "prizeIndex": round.prizeIndex.map { .int(Int64($0)) } ?? .null,
            "total": .int(Int64(round.winners.count)),
            "offset": .int(Int64(request.offset)),
            "limit": .int(Int64(request.limit)),
            "winners": .array(winners.map(\.json)),
            "voided": .array(round.voided.map { .object(["winner": $0.winner.json, "reason": .string($0.reason)]) }),
        ]
        if hasEntrantNames { page["names"] = .object(entrantNames(winners + round.voided.map(\.winner), host: request.host)) }
        return .page(.object(page))
    }

    /// The names of these checked-in entrants that the asker may see: all for the host, else only
    /// when the host made names public (as `state.checkin.names` and the `winners` message decide).
    public func entrantNames(_ values: [DrawValue], host: Bool) -> [String: JSONValue] {
        guard hasEntrantNames else { return [:] }
        var names = [String: JSONValue]()
        for case .name(let id) in values {
            if let name = entrantName(id, host: host) { names[id] = .string(name) }
        }
        return names
    }

    /// The rounds of the visible board that checked-in entry `id` currently wins (not voided).
    public func roundsWon(by id: String) -> [Int] {
        let value = DrawValue.name(id)
        return visibleBoard.filter { $0.winners.contains(value) }.map(\.round)
    }
}
