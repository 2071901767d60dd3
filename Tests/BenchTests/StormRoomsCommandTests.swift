import Foundation
import Glibc
import Testing
@testable import tombola_bench

/// The issue-18 commands end to end against the real server, at a size a debug build on a
/// loaded machine handles: they check what the reports say, not how fast the server is.
@Suite struct StormRoomsCommandTests {
    private func fields(_ report: Report) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(report.jsonLine.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func aStormBringsEveryViewerBackToACorrectStateAndTheWinnersReachThemAll() throws {
        let server = try TombolaServer(hostKey: "sesame", hz: 20)
        defer { server.shutdown() }
        let report = try StormCommand([
            "--viewers", "150", "--pool", "3000", "--per-stop", "50", "--window-ms", "300", "--code", "BENCH",
            "--host-key", "sesame", "--url", "http://127.0.0.1:\(server.port)", "--server-pid", String(getpid()),
            "--calc-clients", "1", "--slow-down-ms", "200",
        ]).run()
        let json = try fields(report)
        #expect(json["joined"] as? Int == 150)
        #expect(json["correct"] as? Int == 150)
        #expect(json["wrong"] as? Int == 0)
        #expect(json["failed"] as? Int == 0)
        #expect(json["revealed"] as? Int == 150)
        // The snapshot of a 3,000-name pool is the summary, not the names.
        #expect((json["stateBytes"] as? Int).map { $0 > 200 && $0 < 16_384 } == true)
        #expect((json["p99Ms"] as? Double).map { $0 >= 0 } == true)
        #expect((json["cdfMs"] as? [Any])?.count == 50)
    }

    @Test func roomsRollsManyDrawsAndThenOneAndReportsBoth() throws {
        let server = try TombolaServer(hostKey: "sesame", hz: 20)
        defer { server.shutdown() }
        let report = try RoomsCommand([
            "--rooms", "8", "--viewers-per-room", "4", "--seconds", "1", "--admin-key", "bench-admin-key",
            "--url", "http://127.0.0.1:\(server.port)", "--server-pid", String(getpid()),
        ]).run()
        let json = try fields(report)
        #expect(json["manyOpened"] as? Int == 32)
        #expect(json["oneOpened"] as? Int == 32)
        #expect((json["manyHz"] as? Double).map { $0 > 0 } == true)
        #expect((json["oneHz"] as? Double).map { $0 > 0 } == true)
        #expect(json["cpuRatio"] is Double)
    }
}
