import DrawEngine
import Glibc
import HTTPCore
import Posix
import RoomTestSupport
import Testing
import WebSocketClient
import WebSocketCore
@testable import App
@testable import Server
import TestSupport

/// Hostile WebSocket clients against the real draw room (`/ws/draw/<code>` of `tombola`, a child
/// process of its own) on loopback. Each attack is bounded; a normal client's latency is measured
/// during it, and connections, viewers and the server's memory must come back to where they were.
@Suite(.serialized) struct AbuseWebSocketTests {
    static let latencyBudget = AbuseHTTPTests.latencyBudget
    static let memorySlack = AbuseHTTPTests.memorySlack
    /// CPU time the server may spend refusing one JSON bomb: a debug build parses a 1 MiB
    /// message in about a second; anything super-linear would take minutes. CPU time of the
    /// child server, not wall time: on a loaded machine a bomb took 41 s of wall time.
    static let bombBudget = 20.0 * Abuse.slowdown

    /// The slowest of `count` fresh HTTP requests for the room's public state, in ms.
    static func worstLatency(_ server: ChildServer, count: Int = 5) throws -> Double {
        var worst = 0.0
        for _ in 0..<count {
            let start = MonotonicClock.nanoseconds()
            _ = try server.state()
            worst = max(worst, millisecondsSince(start))
        }
        return worst
    }

    static func openConnections(_ server: ChildServer) throws -> Int {
        let socket = try BlockingSocket(host: "127.0.0.1", port: server.port)
        try socket.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        var reader = ResponseReader(socket: socket)
        let text = try reader.next().text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tombola_http_open_connections ") }),
              let value = Double(line.split(separator: " ").last ?? "") else { throw TestFailure("no gauge") }
        return Int(value) - 1
    }

    /// A raw socket that completed the handshake to the room (for sending bytes the client would refuse to).
    static func rawSession(_ server: ChildServer) throws -> BlockingSocket {
        let socket = try BlockingSocket(host: "127.0.0.1", port: server.port, timeout: .seconds(5))
        try socket.send("GET /ws/draw/\(DrawTestServer.code) HTTP/1.1\r\n" + validHandshakeLines.map { $0 + "\r\n" }.joined() + "\r\n")
        var head: [UInt8] = []
        while !head.ends(with: [13, 10, 13, 10]) {
            let chunk = try socket.receive(maxCount: 1)
            if chunk.isEmpty { throw TestFailure("closed during the handshake") }
            head += chunk
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw TestFailure("no 101") }
        return socket
    }

    @Test func thousandClientsOpeningAndDroppingSocketsLeaveNoViewerConnectionOrMemoryBehind() throws {
        Abuse.raiseFileLimit(to: 4096)
        let server = try ChildServer()
        defer { server.stop() }
        _ = try Self.worstLatency(server)
        let baseline = server.residentBytes()
        var worst = 0.0
        for round in 0..<10 {
            var batch: [WebSocketClient] = []
            for i in 0..<100 {
                let client = try server.connect()
                if i % 3 == 0 { _ = try client.next(type: "state") }  // some read their snapshot first
                if i % 3 == 1 { try client.send(text: #"{"type":"hello","entropy":"00112233445566778899aabbccddeeff"}"#) }
                batch.append(client)
            }
            // Half leave politely, half just vanish.
            for (i, client) in batch.enumerated() where i % 2 == 0 { try? client.close() }
            batch.removeAll()
            worst = max(worst, try Self.worstLatency(server, count: 1))
            _ = round
        }
        #expect(worst < Self.latencyBudget, "state request took \(worst) ms while sockets churned")
        #expect(try Abuse.eventually(within: .seconds(10)) { try Self.openConnections(server) == 0 })
        #expect(try Abuse.eventually(within: .seconds(10)) { try server.state()["viewers"]?.intValue == 0 })
        let after = server.residentBytes()
        #expect(after - baseline < Self.memorySlack, "RSS \(baseline) → \(after)")
    }

    @Test func aPingFloodFromAClientThatNeverReadsItsPongsIsBounded() throws {
        let server = try ChildServer()
        defer { server.stop() }
        _ = try Self.worstLatency(server)
        let baseline = server.residentBytes()
        let socket = try Self.rawSession(server)
        let ping = clientFrame(.ping, Array(repeating: 0x61, count: 125))
        let batch = Array(Array(repeating: ping, count: 1000).joined())  // 131 KB of pings
        var sent = 0
        let start = MonotonicClock.nanoseconds()
        // 400,000 pings would queue 51 MB of pongs if the server kept reading a client that never reads.
        while sent < 400_000 && millisecondsSince(start) < 6000 {
            do { try socket.send(batch) } catch { break }  // blocks once the server stops reading
            sent += 1000
        }
        #expect(sent < 400_000, "the server read all \(sent) pings of a client that never reads its pongs")
        let during = try Self.worstLatency(server)
        #expect(during < Self.latencyBudget, "state request took \(during) ms during a ping flood")
        let grown = server.residentBytes() - baseline
        #expect(grown < 48 * Abuse.mebibyte * Abuse.memoryFactor, "RSS grew \(grown / Abuse.mebibyte) MiB after \(sent) unanswered pings")
    }

    @Test func floodsOfOneMebibyteMessagesAreClosedWith1009AndChangeNothing() throws {
        let server = try ChildServer()
        defer { server.stop() }
        _ = try Self.worstLatency(server)
        let baseline = server.residentBytes()
        let big = #"{"type":"hello","pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#
        var codes: [UInt16?] = []
        for _ in 0..<20 {
            let client = try server.connect()
            try? client.send(text: big, timeout: .seconds(10))
            codes.append(try? client.receiveCloseCode())
        }
        #expect(codes.allSatisfy { $0 == 1009 }, "\(codes)")
        #expect(try Self.worstLatency(server) < Self.latencyBudget)
        #expect(try server.state()["phase"]?.stringValue == "idle")
        #expect(try Abuse.eventually(within: .seconds(10)) { try Self.openConnections(server) == 0 })
        let after = server.residentBytes()
        #expect(after - baseline < Self.memorySlack, "RSS \(baseline) → \(after)")
    }

    @Test func invalidFramesCloseTheirConnectionsWithAProtocolCode() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix(seed: seed)
        let server = try ChildServer()
        defer { server.stop() }
        let attacks: [(String, [UInt8])] = [
            ("unmasked", clientFrame(.text, Array("{}".utf8), masked: false)),
            ("reserved opcode", [0x83, 0x80, 1, 2, 3, 4]),
            ("rsv2", [0xA1, 0x80, 1, 2, 3, 4]),
            ("long ping", clientFrame(.ping, Array(repeating: 1, count: 126))),
            ("fragmented close", [0x08, 0x80, 1, 2, 3, 4]),
            ("continuation first", clientFrame(.continuation, [1])),
            ("bad utf-8", clientFrame(.text, [0x7B, 0xC3, 0x28, 0x7D])),
            ("64-bit length with top bit", [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4]),
            ("bad close code", clientFrame(.close, [0x03, 0xEC])),
            ("rsv1 on a control frame", [0xC9, 0x80, 1, 2, 3, 4]),
        ]
        for (name, bytes) in attacks {
            let socket = try Self.rawSession(server)
            try socket.send(bytes)
            let reply = (try? socket.receiveUntilClosed()) ?? []
            // The last frame is our close frame: 0x88, length, code.
            guard let index = reply.lastIndex(of: 0x88), index + 3 < reply.count else {
                Issue.record("\(name): no close frame in \(reply.count) bytes")
                continue
            }
            let code = UInt16(reply[index + 2]) << 8 | UInt16(reply[index + 3])
            #expect([1002, 1007, 1009].contains(code), "\(name): closed with \(code)")
        }
        // Random bytes after the handshake never take the server down.
        for _ in 0..<100 {
            let socket = try Self.rawSession(server)
            try? socket.send((0..<Int.random(in: 1...2048, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        #expect(try Self.worstLatency(server) < Self.latencyBudget, "seed \(seed)")
        #expect(try Abuse.eventually(within: .seconds(10)) { try Self.openConnections(server) <= 100 }, "seed \(seed)")
    }

    /// Deep nesting, huge arrays, long strings and many keys, as draw messages: each gets an
    /// error frame (or 1009 when over the message limit) and nothing changes.
    @Test func jsonBombsOverWebSocketGetAnErrorAndChangeNothing() throws {
        let server = try ChildServer()
        defer { server.stop() }
        let host = try server.host()
        let bombs: [String] = [
            Bomb.nested(200_000),
            #"{"type":"configure","seq":1,"config":"# + Bomb.nestedObjects(50_000) + "}",
            #"{"type":"configure","seq":2,"config":{"pool":{"kind":"range","from":1,"to":500},"exclude":["#
                + Bomb.list("1", count: 150_000) + "]}}",
            #"{"type":"configure","seq":3,"config":{"prizes":["# + Bomb.list(#"{"name":"p","count":1}"#, count: 20_000) + "]}}",
            "{" + Bomb.keys(40_000) + #","type":"launch"}"#,
            #"{"type":"auth","key":""# + String(repeating: "k", count: 900_000) + #""}"#,
            #"{"type":"start","audience":""# + String(repeating: "9", count: 500_000) + #""}"#,
        ]
        for (index, bomb) in bombs.enumerated() {
            #expect(bomb.utf8.count < 1 << 20, "bomb \(index) must fit the message limit")
            let cpu = server.cpuSeconds()
            try host.send(text: bomb, timeout: .seconds(120))
            let reply = try host.nextEvent(timeout: .seconds(120))
            #expect(reply["type"]?.stringValue == "error", "bomb \(index): \(reply.canonicalString.prefix(200))")
            let spent = server.cpuSeconds() - cpu
            #expect(spent < Self.bombBudget, "bomb \(index) took \(spent) s of the server's CPU")
        }
        let state = try server.state()
        #expect(state["phase"]?.stringValue == "idle")
        #expect(state["config"]?["pool"]?["to"]?.intValue == 500)
        #expect(try Self.worstLatency(server) < Self.latencyBudget)
    }

    @Test func jsonBombsOverRESTGetA4xxAndChangeNothing() throws {
        let server = try ChildServer()
        defer { server.stop() }
        let bombs: [String] = [
            Bomb.nested(200_000),
            Bomb.nestedObjects(50_000),
            #"{"pool":{"kind":"range","from":1,"to":500},"exclude":["# + Bomb.list("1", count: 200_000) + "]}",
            #"{"pool":{"kind":"list","entrants":["# + Bomb.list(#""e""#, count: 150_000) + "]}}",
            "{" + Bomb.keys(60_000) + #","pool":7}"#,
            "[" + Bomb.list("1", count: 500_000) + "]",  // just under the 1 MiB body limit
        ]
        for (index, bomb) in bombs.enumerated() {
            let cpu = server.cpuSeconds()
            let response = try server.command("config", body: bomb)
            #expect((400..<500).contains(response.status), "bomb \(index): \(response.status) \(response.text.prefix(200))")
            let spent = server.cpuSeconds() - cpu
            #expect(spent < Self.bombBudget, "bomb \(index) took \(spent) s of the server's CPU")
        }
        let state = try server.state()
        #expect(state["config"]?["pool"]?["to"]?.intValue == 500)
        #expect(try Self.worstLatency(server) < Self.latencyBudget)
    }
}

/// JSON bombs, built without one long expression (the type checker gives up on those).
enum Bomb {
    /// `[[[…]]]`, `depth` deep.
    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// `{"a":{"a":…1…}}`, `depth` deep.
    static func nestedObjects(_ depth: Int) -> String {
        let open = String(repeating: #"{"a":"#, count: depth)
        return open + "1" + String(repeating: "}", count: depth)
    }

    /// `item,item,…`, `count` times.
    static func list(_ item: String, count: Int) -> String {
        Array(repeating: item, count: count).joined(separator: ",")
    }

    /// `"k0":0,"k1":0,…`, `count` distinct keys.
    static func keys(_ count: Int) -> String {
        var parts: [String] = []
        parts.reserveCapacity(count)
        for index in 0..<count { parts.append("\"k\(index)\":0") }
        return parts.joined(separator: ",")
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
