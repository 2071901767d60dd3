@testable import App
import DrawEngine
import JSON
import RoomTestSupport
import Testing
import WebSocketClient
@testable import Server
import TestSupport

/// The `state` snapshot is built once per change and shared by every join (issue #18), and
/// carries the settings' summary, not the names.
@Suite struct DrawSnapshotTests {
    /// The snapshot a new page `id` gets, and the one built afresh for it at the same moment.
    private static func joinAndBuild(_ room: inout RoomHarness, _ id: UInt64) throws -> (shared: JSONValue, fresh: JSONValue) {
        let joined = room.handle(.joined(id, remote: "10.0.1.\(id % 250)"))
        let sent = try #require(joined.compactMap(\.sent).first { $0.to == id })
        return (try JSONValue.parse(sent.text), try JSONValue.parse(room.state.stateText(for: id)))
    }

    /// Equal apart from `viewers`, which is the count when the shared snapshot was built (at most
    /// a second old: the throttled `viewers` announcement rebuilds it).
    private static func withoutViewers(_ value: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        members["viewers"] = nil
        return .object(members)
    }

    @Test func aSharedSnapshotIsIdenticalToAFreshlyBuiltOneThroughARound() throws {
        var room = try RoomHarness(slowDown: .milliseconds(300))
        room.host(1)
        var id: UInt64 = 10
        func check(_ step: String) throws {
            id += 1
            let (shared, fresh) = try Self.joinAndBuild(&room, id)
            #expect(Self.withoutViewers(shared) == Self.withoutViewers(fresh), "\(step)")
            // The next page gets the very same frame while nothing changed.
            id += 1
            let next = room.handle(.joined(id, remote: "10.0.2.1"))
            guard case .sendState(let a, _)? = room.handle(.joined(id + 1000, remote: "10.0.2.2")).first(where: { if case .sendState = $0 { true } else { false } }),
                  case .sendState(let b, _)? = next.first(where: { if case .sendState = $0 { true } else { false } }) else {
                Issue.record("no shared snapshot at \(step)")
                return
            }
            #expect(a.key != nil && a.key == b.key && a.text == b.text, "\(step)")
            // After the viewer count is announced the rebuilt snapshot matches exactly.
            room.advance(.seconds(1))
            _ = room.handle(.timerDue(.viewers))
            id += 1
            let (after, afresh) = try Self.joinAndBuild(&room, id)
            #expect(after == afresh, "\(step), after the viewers announcement")
        }
        try check("idle")
        let names = (0..<500).map { "Name \($0)" }
        _ = room.command(.configure(DrawConfig(pool: .list(names), perStop: .count(3))))
        _ = room.handle(.stored(.success(())))
        try check("configured")
        _ = room.start()
        try check("rolling")
        room.advance(.milliseconds(50))
        _ = room.handle(.timerDue(.motion))
        try check("after a tick")
        _ = room.command(.stop)
        _ = room.handle(.stored(.success(())))
        try check("stopping")
        for _ in 0..<40 where room.state.draw.phase == .stopping {
            room.advance(.milliseconds(100))
            _ = room.handle(.timerDue(.motion))
        }
        #expect(room.state.draw.phase == .revealed)
        try check("revealed")
        let winner = try #require(room.state.draw.board.last?.winners.first)
        _ = room.command(.void(round: 1, winner: winner, reason: "absent", audience: nil))
        _ = room.handle(.stored(.success(())))
        try check("voided")
        _ = room.command(.clear)
        _ = room.handle(.stored(.success(())))
        try check("cleared")
    }

    @Test func theSnapshotCarriesTheListsSummaryNotItsNames() throws {
        var room = try RoomHarness()
        let names = (0..<100_000).map { "Entrant number \($0)" }
        _ = room.command(.configure(DrawConfig(pool: .list(names), exclude: [.name("Entrant number 7")])))
        let stored = room.handle(.stored(.success(())))
        let config = try #require(stored.compactMap(\.broadcastJSON).first { $0["type"]?.stringValue == "config" })
        let (shared, _) = try Self.joinAndBuild(&room, 2)
        for summary in [shared["config"], config["config"]] {
            #expect(summary?["pool"]?["count"]?.intValue == 100_000)
            #expect(summary?["pool"]?["entrantsHash"]?.stringValue == room.state.draw.entrantsHash)
            #expect(summary?["pool"]?["entrants"] == nil)
            #expect(summary?["excludeCount"]?.intValue == 1)
            #expect(summary?["hash"]?.stringValue == room.state.configHash)
        }
        let sent = try #require(room.handle(.joined(3, remote: "10.0.0.3")).compactMap(\.sent).first)
        #expect(sent.text.utf8.count < 16_384)
        // The full settings stay in the room for the download.
        #expect(try JSONValue.parse(room.state.configText)["pool"]?["entrants"]?.arrayValue?.count == 100_000)
    }
}

@Suite("Draw snapshots over WebSocket", .serialized)
struct DrawSnapshotServerTests {
    @Test func theFullSettingsAreOneCachedCompressedDownloadValidatedByETag() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let names = (0..<2_000).map { "Entrant \($0)" }.joined(separator: "\\n")
        #expect(try server.command("config", body: #"{"pool":{"kind":"list","text":"\#(names)"}}"#).status == 200)
        let summary = try #require(try server.state()["config"])
        let hash = try #require(summary["hash"]?.stringValue)
        let path = "/api/draws/\(DrawTestServer.code)/config"
        let plain = try server.request("GET", path)
        #expect(plain.status == 200)
        #expect(plain.headers["ETag"] == "\"\(hash)\"")
        #expect(plain.json["pool"]?["entrants"]?.arrayValue?.count == 2_000)
        let gzipped = try server.request("GET", path, headers: ["Accept-Encoding: gzip"])
        #expect(gzipped.headers["Content-Encoding"] == "gzip")
        #expect(gzipped.body.count < plain.body.count / 3)
        let revalidated = try server.request("GET", path, headers: ["If-None-Match: \"\(hash)\""])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        // A new configure changes the hash; the old tag no longer matches.
        #expect(try server.command("config", body: #"{"pool":{"kind":"range","from":1,"to":9}}"#).status == 200)
        let changed = try server.request("GET", path, headers: ["If-None-Match: \"\(hash)\""])
        #expect(changed.status == 200)
        #expect(changed.json["pool"]?["to"]?.intValue == 9)
        #expect(try server.state()["config"]?["hash"]?.stringValue == changed.headers["ETag"].map { String($0.dropFirst().dropLast()) })
    }

    @Test func aStormOf200ReconnectsAllGetTheRightState() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(100))
        defer { server.stop() }
        let names = (0..<5_000).map { "Guest \($0)" }.joined(separator: "\\n")
        #expect(try server.command("config", body: #"{"pool":{"kind":"list","text":"\#(names)"},"perStop":2}"#).status == 200)
        var viewers = try (0..<200).map { _ in try server.connect() }
        for viewer in viewers { _ = try viewer.next(type: "state") }
        #expect(try server.command("start").status == 200)
        let rolling = try server.state()
        // Everyone drops at once (the sockets just close, as in a Wi-Fi blip) and comes back while the round rolls.
        viewers.removeAll()
        viewers = try (0..<200).map { _ in try server.connect() }
        for viewer in viewers {
            let state = try viewer.next(type: "state")
            #expect(state["phase"]?.stringValue == "rolling")
            #expect(state["commit"] == rolling["commit"])
            #expect(state["config"] == rolling["config"])
            #expect(state["plan"] == rolling["plan"])
        }
        let stop = try server.command("stop")
        #expect(stop.status == 200)
        let winners = try #require(stop.json["result"]?["winners"])
        for viewer in viewers {
            let result = try viewer.next(type: "result", timeout: .seconds(10))
            #expect(result["winners"] == winners)
        }
        // A second storm after the reveal: the snapshot shows the revealed round.
        viewers.removeAll()
        viewers = try (0..<200).map { _ in try server.connect() }
        for viewer in viewers {
            let state = try viewer.next(type: "state")
            #expect(state["phase"]?.stringValue == "revealed")
            #expect(state["result"]?["winners"] == winners)
        }
    }

    @Test func fiftyRoomsTickIndependently() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(100))
        defer { server.stop() }
        var codes = [String]()
        var keys = [String: String]()
        for _ in 0..<50 {
            let created = try server.request("POST", "/api/draws", key: DrawTestServer.adminKey, body: "{}")
            let code = try #require(created.json["code"]?.stringValue)
            codes.append(code)
            keys[code] = created.json["hostKey"]?.stringValue
        }
        let viewers = try codes.map { code in
            let viewer = try server.connect(code: code)
            _ = try viewer.next(type: "state")
            return viewer
        }
        for code in codes {
            #expect(try server.command("start", key: keys[code]!, code: code).status == 200)
        }
        // Every room ticks with its own sequence, 1, 2, 3…, at its own pace.
        for (index, viewer) in viewers.enumerated() {
            var seqs = [Int64]()
            while seqs.count < 5 {
                let tick = try viewer.next(type: "tick")
                seqs.append(tick["seq"]?.intValue ?? -1)
            }
            #expect(seqs.first == 1 || seqs.first.map { $0 > 0 } == true, "room \(index)")
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 > $0 }, "room \(index): \(seqs)")
        }
        // Stopping every other room stops only that room.
        for code in codes.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
            #expect(try server.command("stop", key: keys[code]!, code: code).status == 200)
        }
        for (index, viewer) in viewers.enumerated() {
            if index % 2 == 0 {
                _ = try viewer.next(type: "result", timeout: .seconds(10))
                #expect(try server.state(code: codes[index])["phase"]?.stringValue == "revealed")
            } else {
                let before = try viewer.next(type: "tick")["seq"]?.intValue ?? 0
                let after = try viewer.next(type: "tick")["seq"]?.intValue ?? 0
                #expect(after > before, "room \(index) still ticks")
                #expect(try server.state(code: codes[index])["phase"]?.stringValue == "rolling")
            }
        }
    }
}
