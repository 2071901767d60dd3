import DrawEngine
import DrawRoomCore
import JSON
import RedisStore
import RoomTestSupport
import Testing
@testable import ClusterCore

/// The command channel's and the reply channel's one encoder and decoder each
/// (docs/CLUSTER.md, *Host commands on any instance*): every kind reads back as it was sent,
/// every prefix of a message and every malformed one is refused with why.
@Suite struct ClusterCommandMessageTests {
    static let device = String(repeating: "ab", count: 32)

    static var commands: [HostCommand] {
        var settings = CheckinSettings()
        settings.presence = true
        settings.fields = [CheckinField(key: "ticket", label: "Ticket", required: true, unique: true, maxLength: 20)]
        var linked = try! DrawConfig(json: JSONValue.parse(#"{"pool":{"kind":"list","entrants":["a","b","c"]},"perStop":2}"#))
        linked.excludeWinnersOf = [PastDraw(code: "OTHER1", key: "cluster-link-proof:00ff"), PastDraw(code: "OTHER2")]
        return [
            .start(audience: "123"), .start(audience: nil), .stop, .clear,
            .configure(try! DrawConfig(json: JSONValue.parse(#"{"pool":{"kind":"list","entrants":["a","b","c"]},"perStop":2}"#))),
            .configure(linked),
            .void(round: 3, winner: .name("b"), reason: "no-show", audience: nil),
            .void(round: 1, winner: .number(17), reason: "left", audience: "9"),
            .replacePool(.range(from: 1, to: 90)),
            .checkin(.open(nil)), .checkin(.open(settings)), .checkin(.close), .checkin(.remove(id: "ABCD2345", reason: "left")),
            .checkin(.erase), .checkin(.expire(days: 30)),
        ]
    }

    static var queries: [CheckinQuery] {
        [.entry(device: "ab"), .pool, .presence, .export, .winnerPresence,
         .pages([.init(device: "ab", host: false), .init(device: nil, host: true)]),
         .list(search: "zoë", offset: 50, limit: 20, removed: true, csv: false)]
    }

    static var messages: [ClusterCommandMessage] {
        var all: [ClusterCommandMessage] = [
            .viewers(from: "i1", count: 0), .viewers(from: "i1", count: 12_000),
            .entropy(from: "i2", page: 7, Contribution(hex: "00112233445566778899aabbccddeeff")), .entropy(from: "i2", page: 7, nil),
            .device(from: "i3", page: 9, device: device), .device(from: "i3", page: 9, device: nil),
            .request(.checkin(.join(body: .object(["name": .string("Zoë \"Z\"\n")]), device: device)), from: "i1", id: 1),
            .request(.checkin(.claim(device: device)), from: "i1", id: 2),
        ]
        all += queries.enumerated().map { .request(.checkin(.read($1)), from: "i4", id: UInt64(10 + $0)) }
        all += commands.enumerated().map {
            .request(.command($1, seq: $0 % 2 == 0 ? Int64($0) : nil, client: $0 % 3 == 0 ? "phone-1" : nil, awaitReveal: $0 % 2 == 1),
                     from: "i5", id: UInt64(100 + $0))
        }
        return all
    }

    @Test func everyKindReadsBackAsItWasSent() throws {
        for message in Self.messages {
            let back = try ClusterCommandMessage.decode(message.encoded)
            #expect(back.encoded == message.encoded)
            switch (message, back) {
            case (.viewers, .viewers), (.entropy, .entropy), (.device, .device), (.request(.checkin, _, _), .request(.checkin, _, _)): break
            case (.request(.command(let sent, _, _, _), _, _), .request(.command(let read, _, _, _), _, _)):
                #expect(read.name == sent.name)
                #expect(read.forwardedJSON == sent.forwardedJSON)
            default: Issue.record("\(message) read back as \(back)")
            }
        }
    }

    /// The path of a host's Stop on a follower: page JSON → HostCommand → typed message → bytes
    /// → typed message → HostCommand on the owner.
    @Test func aPagesStopReachesTheOwnerAsTheSameCommand() throws {
        guard case .command(let command, let seq) = try DrawMessageParser.parse(#"{"type":"stop","seq":4,"client":"phone-1"}"#) else {
            Issue.record("not a command"); return
        }
        let sent = ClusterCommandMessage.request(.command(command, seq: seq, client: "phone-1", awaitReveal: false), from: "i2", id: 3)
        guard case .request(.command(.stop, seq: 4, client: "phone-1", awaitReveal: false), from: "i2", id: 3) =
            try ClusterCommandMessage.decode(sent.encoded) else { Issue.record("not read back as the Stop"); return }
    }

    @Test func aConfiguresLinkProofsTravelAndTheParserReadsThemBack() throws {
        guard case .configure(let config)? = Self.commands.first(where: { if case .configure(let c) = $0 { !c.excludeWinnersOf.isEmpty } else { false } }),
              case .configure(let back) = try HostCommand(forwarded: HostCommand.configure(config).forwardedJSON) else {
            Issue.record("no configure"); return
        }
        #expect(back.excludeWinnersOf == config.excludeWinnersOf)
    }

    @Test func everyPrefixOfAMessageIsRefused() {
        for message in Self.messages {
            let bytes = message.encoded
            for end in 0..<bytes.count {
                #expect(throws: ClusterWireError.notJSON) { try ClusterCommandMessage.decode(Array(bytes[..<end])) }
            }
        }
    }

    @Test(arguments: [
        ("", ClusterWireError.notJSON), ("[1]", .notJSON), ("\"x\"", .notJSON), ("{\"kind\":\"viewers\"", .notJSON),
        (#"{"kind":"viewers","count":1}"#, .badMember("from")),
        (#"{"kind":"hello","from":"i1"}"#, .unknownKind("hello")), (#"{"from":"i1"}"#, .unknownKind("")),
        (#"{"kind":"viewers","from":"i1"}"#, .badMember("count")), (#"{"kind":"viewers","from":"i1","count":-1}"#, .badMember("count")),
        (#"{"kind":"entropy","from":"i1","page":1,"entropy":"zz"}"#, .badMember("entropy")),
        (#"{"kind":"entropy","from":"i1","entropy":null}"#, .badMember("page")),
        (#"{"kind":"device","from":"i1","page":1,"device":"ab"}"#, .badMember("device")),
        (#"{"kind":"command","from":"i1","id":0,"command":{"type":"stop"}}"#, .badMember("id")),
        (#"{"kind":"command","from":"i1","id":5,"command":{"type":"shout"}}"#, .unreadableRequest(from: "i1", id: 5, code: "unknown_type")),
        (#"{"kind":"command","from":"i1","id":5}"#, .unreadableRequest(from: "i1", id: 5, code: "bad_message")),
        (#"{"kind":"command","from":"i1","id":5,"seq":-1,"command":{"type":"stop"}}"#, .unreadableRequest(from: "i1", id: 5, code: "bad_message")),
        (#"{"kind":"command","from":"i1","id":5,"command":{"type":"configure","config":{"mode":"dice"}}}"#,
         .unreadableRequest(from: "i1", id: 5, code: "bad_mode")),
        (#"{"kind":"command","from":"i1","id":5,"command":{"type":"checkin","checkin":{"op":"open","settings":"x"}}}"#,
         .unreadableRequest(from: "i1", id: 5, code: "bad_message")),
        (#"{"kind":"checkin","from":"i1","id":6,"request":{"op":"join","body":{},"device":"ab"}}"#,
         .unreadableRequest(from: "i1", id: 6, code: "bad_message")),
        (#"{"kind":"checkin","from":"i1","id":6,"request":{"op":"list","q":"","offset":-1,"limit":5,"removed":false,"csv":false}}"#,
         .unreadableRequest(from: "i1", id: 6, code: "bad_message")),
    ])
    func malformedMessagesAreRefusedWithWhy(text: String, error: ClusterWireError) {
        #expect(throws: error) { try ClusterCommandMessage.decode(Array(text.utf8)) }
    }

    // MARK: Replies

    static var replies: [ClusterReply] {
        let ack: JSONValue = .object(["type": .string("ack"), "seq": .int(4), "command": .string("stop")])
        return [
            ClusterReply(draw: "ROOM", id: 1, outcome: .success(CommandReply(ack: ack))),
            ClusterReply(draw: "ROOM", id: 2, outcome: .success(CommandReply(ack: ack, result: .object(["type": .string("result")])))),
            ClusterReply(draw: "ROOM", id: 3, outcome: .failure(CommandFailure(code: "cluster_unavailable"))),
            ClusterReply(draw: "ROOM", id: 4, outcome: .failure(CommandFailure(code: "bad_field", detail: .object(["field": .string("name")])))),
        ]
    }

    @Test func everyReplyReadsBackAsItWasSent() throws {
        for reply in Self.replies { #expect(try ClusterReply.decode(reply.encoded) == reply) }
    }

    @Test func aKeptAnswerReadsBackAsItWasKept() throws {
        for reply in Self.replies {
            guard case .success(let answer) = reply.outcome else { continue }
            #expect(try ClusterReply.keptReply(ClusterReply.kept(answer)) == answer)
        }
        #expect(throws: ClusterWireError.notJSON) { try ClusterReply.keptReply("{") }
        #expect(throws: ClusterWireError.badMember("ack")) { try ClusterReply.keptReply(#"{"result":null}"#) }
    }

    @Test func everyPrefixOfAReplyIsRefused() {
        for reply in Self.replies {
            let bytes = reply.encoded
            for end in 0..<bytes.count { #expect(throws: ClusterWireError.notJSON) { try ClusterReply.decode(Array(bytes[..<end])) } }
        }
    }

    @Test(arguments: [
        ("", ClusterWireError.notJSON), ("[]", .notJSON),
        (#"{"id":1,"ok":true,"ack":{}}"#, .badMember("draw")), (#"{"draw":"R","ok":true,"ack":{}}"#, .badMember("id")),
        (#"{"draw":"R","id":0,"ok":true,"ack":{}}"#, .badMember("id")), (#"{"draw":"R","id":1,"ack":{}}"#, .badMember("ok")),
        (#"{"draw":"R","id":1,"ok":true}"#, .badMember("ack")), (#"{"draw":"R","id":1,"ok":true,"ack":null}"#, .badMember("ack")),
        (#"{"draw":"R","id":1,"ok":false}"#, .badMember("code")),
    ])
    func malformedRepliesAreRefusedWithWhy(text: String, error: ClusterWireError) {
        #expect(throws: error) { try ClusterReply.decode(Array(text.utf8)) }
    }

    // MARK: The moved read-backs (were AppTests' ClusterOptionsTests and ClusterCheckinTests)

    @Test func forwardedCommandsReadBackAsTheSameCommand() throws {
        for command in Self.commands {
            let json = command.forwardedJSON
            #expect(json["type"]?.stringValue != nil)
            let back = try HostCommand(forwarded: JSONValue.parse(json.canonicalString))
            #expect(back.forwardedJSON == json)
        }
        #expect(throws: MessageError.self) { try CheckinCommand(forwarded: .object(["op": .string("open"), "settings": .string("x")])) }
    }

    @Test func forwardedCheckinQueriesReadBackTheSame() throws {
        for query in Self.queries { #expect(CheckinQuery(json: try JSONValue.parse(query.json.canonicalString)) == query) }
        #expect(CheckinQuery(json: .object(["op": .string("list"), "q": .string(""), "offset": .int(-1), "limit": .int(5),
                                            "removed": .bool(false), "csv": .bool(false)])) == nil)
    }

    // MARK: The owner

    @Test func anUnreadableRequestIsAnsweredWithWhyAndTheRestReachTheRoom() throws {
        var old = try ClusterResumeTests.OldOwner()
        old.start()
        let seed = try old.stop()
        guard case .commit(let commitment, _)? = old.records.last(where: { if case .commit = $0.body { true } else { false } })?.body else {
            Issue.record("no commit"); return
        }
        var (state, _, _, _) = ClusterNodeStateTests.takeOver(old.records, config: .standard, seed: seed, commitment: commitment)
        var random = SeededGenerator(seed: 1)
        let now = ClusterNodeState.Moment(nanoseconds: 10_100_000_000, wallMilliseconds: 1_764_000_000_100)
        let bad = state.handle(.commandChannel(Array(#"{"kind":"command","from":"i2","id":8,"command":{"type":"shout"}}"#.utf8)),
                               at: now, using: &random)
        #expect(bad.contains { if case .publishReply(let r, "i2") = $0 { r == ClusterReply(draw: "ROOM", id: 8,
                                                                                               outcome: .failure(CommandFailure(code: "unknown_type"))) } else { false } })
        let stop = ClusterCommandMessage.request(.command(.stop, seq: 2, client: nil, awaitReveal: true), from: "i2", id: 9)
        let good = state.handle(.commandChannel(stop.encoded), at: now, using: &random)
        #expect(good.contains { if case .inbound(.command(.stop, 2, nil, true), "i2", 9) = $0 { true } else { false } })
        #expect(state.handle(.commandChannel(Array("garbage".utf8)), at: now, using: &random).isEmpty)
    }
}
