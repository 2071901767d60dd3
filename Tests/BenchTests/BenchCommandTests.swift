import Foundation
import Glibc
import Testing
@testable import tombola_bench

/// The bench's commands end to end against the real server (`TombolaServer`, 127.0.0.1).
@Suite struct BenchCommandTests {
    private func fields(_ report: Report) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(report.jsonLine.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func fanoutDeliversEveryTickInOrderToTwoHundredViewersWhileKeysAreTimed() throws {
        let server = try TombolaServer(hostKey: "sesame", hz: 50)
        defer { server.shutdown() }
        let report = try FanoutCommand([
            "--viewers", "200", "--hz", "50", "--seconds", "1", "--code", "BENCH", "--host-key", "sesame",
            "--url", "http://127.0.0.1:\(server.port)", "--server-pid", String(getpid()),
            "--calc-clients", "2", "--calc-interval-ms", "20",
        ]).run()
        let json = try fields(report)
        let sent = try #require(json["ticksSent"] as? Int)
        // 50 are due in the second; a starved debug server on a loaded machine sends fewer, but some.
        #expect(sent >= 5)
        #expect(json["opened"] as? Int == 200)
        #expect(json["ticksDelivered"] as? Int == sent * 200)
        #expect(json["missingTicks"] as? Int == 0)
        #expect(json["outOfOrder"] as? Int == 0)
        #expect(json["disconnects"] as? Int == 0)
        #expect(json["revealed"] as? Bool == true)
        // Only a stall would reach 5 s; this test is about the report, not the server's speed.
        #expect((json["p50Ms"] as? Double).map { $0 >= 0 && $0 < 5000 } == true)
        #expect((json["serverCpuSeconds"] as? Double).map { $0 >= 0 } == true)
        #expect((json["calcRoundTrips"] as? Int).map { $0 >= 2 } == true)
        #expect(json["calcP99Ms"] is Double)
    }

    @Test func fanoutRefusesAWrongHostKey() throws {
        let server = try TombolaServer(hostKey: "sesame", hz: 50)
        defer { server.shutdown() }
        #expect(throws: BenchError.self) {
            try FanoutCommand(["--viewers", "3", "--seconds", "1", "--code", "BENCH", "--host-key", "nope",
                               "--url", "http://127.0.0.1:\(server.port)"]).run()
        }
    }

    @Test func keysTimesEveryRoundTrip() throws {
        let server = try TombolaServer(hostKey: "sesame", hz: 50)
        defer { server.shutdown() }
        let report = try KeysCommand(["--clients", "5", "--keys", "40", "--url", "http://127.0.0.1:\(server.port)"]).run()
        let json = try fields(report)
        #expect(json["roundTrips"] as? Int == 200)
        #expect(json["unmatched"] as? Int == 0)
        #expect((json["p99Ms"] as? Double).map { $0 > 0 } == true)
    }

    @Test func connectHoldsAndProbesEveryConnection() throws {
        let server = try TombolaServer(hostKey: "sesame", hz: 50)
        defer { server.shutdown() }
        let report = try ConnectCommand(["--connections", "300", "--hold", "0.2", "--url", "http://127.0.0.1:\(server.port)",
                                         "--server-pid", String(getpid())]).run()
        let json = try fields(report)
        #expect(json["opened"] as? Int == 300)
        #expect(json["held"] as? Int == 300)
        #expect(json["echoed"] as? Int == 300)
        #expect(json["bytesPerConnection"] != nil)
    }

    @Test(arguments: ["http://10.0.0.1:8080", "http://example.com", "http://128.0.0.1:80", "https://127.0.0.1:443"])
    func refusesTargetsOutsideLoopback(_ url: String) {
        #expect(throws: BenchError.self) { try BenchTarget(url: url) }
    }

    @Test(arguments: [("http://127.0.0.1:8080", 8080), ("localhost:9000", 9000), ("ws://127.1.2.3:1/x", 1)])
    func acceptsLoopbackTargets(_ url: String, _ port: Int) throws {
        #expect(try BenchTarget(url: url).port == port)
    }

    @Test func rejectsUnknownAndMalformedOptions() {
        #expect(throws: BenchError.self) { try KeysCommand(["--clients", "many"]) }
        #expect(throws: BenchError.self) { try KeysCommand(["--cliens", "5"]) }
        #expect(throws: BenchError.self) { try FanoutCommand(["--viewers", "5", "--code", "X"]) }
    }
}
