import Foundation
import Testing
@testable import App
@testable import DrawRoomCore
import DrawEngine
import JSON

/// Cluster mode's options (the forwarded commands and the sealed seed are ClusterCoreTests'). The cluster itself runs in
/// Tests/peers/test_cluster.py (real redis-server, real instances).
@Suite struct ClusterOptionsTests {
    private func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> AppConfiguration {
        guard case .run(let configuration) = try ServerOptions.parse(arguments, environment: environment) else {
            throw ServerOptions.UsageError(message: "expected run")
        }
        return configuration
    }

    private func keyFile(_ contents: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "tombola-cluster-key-\(UUID().uuidString)"
        try Data(contents).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func withoutRedisNothingChanges() throws {
        #expect(try parse([]).cluster == nil)
    }

    @Test func redisWithAKeyFileOrTheEnvironment() throws {
        let raw = (0..<32).map { UInt8($0) }
        let rawFile = try keyFile(raw)
        let hexFile = try keyFile(Array((Hex.encode(raw) + "\n").utf8))
        defer { try? FileManager.default.removeItem(atPath: rawFile); try? FileManager.default.removeItem(atPath: hexFile) }
        let a = try #require(try parse(["--redis", "redis://10.0.0.5:6380/2", "--cluster-key", rawFile]).cluster)
        #expect(a.endpoint.host == "10.0.0.5" && a.endpoint.port == 6380 && a.endpoint.database == 2)
        #expect(a.key == raw && !a.allowUnsafeRedis)
        #expect(!"\(a)".contains(Hex.encode(raw)) && !"\(a)".contains("0001020304"))
        let b = try #require(try parse(["--cluster-key=" + hexFile, "--allow-unsafe-redis"],
                                       environment: ["TOMBOLA_REDIS": "redis://127.0.0.1:7000"]).cluster)
        #expect(b.key == raw && b.allowUnsafeRedis && b.endpoint.port == 7000)
        let c = try #require(try parse(["--redis", "redis://127.0.0.1"], environment: ["TOMBOLA_CLUSTER_KEY": Hex.encode(raw)]).cluster)
        #expect(c.key == raw && c.endpoint.port == 6379)
    }

    @Test func sentinelsAndTheMasterNameInsteadOfRedis() throws {
        let raw = (0..<32).map { UInt8($0) }
        let file = try keyFile(raw)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let a = try #require(try parse(["--redis-sentinel", "10.0.0.11:26379, 10.0.0.12:26380,[::1]:26381",
                                        "--redis-master", "tombola-main", "--cluster-key", file]).cluster)
        let sentinel = try #require(a.sentinel)
        #expect(sentinel.masterName == "tombola-main" && a.replicaAcks == 1)
        #expect(sentinel.sentinels.map { "\($0.host):\($0.port)" } == ["10.0.0.11:26379", "10.0.0.12:26380", "::1:26381"])
        #expect("\(a)".contains("sentinel tombola-main via 10.0.0.11:26379"))
        let b = try #require(try parse(["--cluster-key", file], environment: ["TOMBOLA_REDIS_SENTINEL": "127.0.0.1:5000",
                                                                             "TOMBOLA_REDIS_MASTER": "m"]).cluster)
        #expect(b.sentinel?.sentinels.first?.port == 5000 && b.sentinel?.masterName == "m")
        #expect(try parse(["--redis", "redis://127.0.0.1", "--cluster-key", file]).cluster?.replicaAcks == 0)
        func message(_ arguments: [String]) -> String? {
            do {
                _ = try ServerOptions.parse(arguments + ["--cluster-key", file], environment: [:])
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(["--redis-master", "m"])?.contains("go together") == true)
        #expect(message(["--redis-sentinel", "127.0.0.1:5000"])?.contains("go together") == true)
        #expect(message(["--redis-sentinel", "127.0.0.1:5000", "--redis-master", "m", "--redis", "redis://127.0.0.1"])?
            .contains("not both") == true)
        for bad in ["127.0.0.1", "127.0.0.1:0", "a:1,,b:2", "redis://127.0.0.1:5000", ":pw@127.0.0.1:5000", "127.0.0.1:5000/1"] {
            #expect(message(["--redis-sentinel", bad, "--redis-master", "m"])?.contains("HOST:PORT") == true, "\(bad)")
        }
        #expect(message(["--redis-sentinel", "127.0.0.1:5000", "--redis-master", "bad name"])?.contains("letters, digits") == true)
    }

    @Test func badClusterOptionsAreRefusedWithAClearMessage() throws {
        let short = try keyFile(Array(repeating: 7, count: 31))
        defer { try? FileManager.default.removeItem(atPath: short) }
        func message(_ arguments: [String], _ environment: [String: String] = [:]) -> String? {
            do {
                _ = try ServerOptions.parse(arguments, environment: environment)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(["--redis", "http://x:1"])?.contains("redis://HOST:PORT") == true)
        #expect(message(["--redis", "redis://127.0.0.1:6379"])?.contains("--cluster-key FILE or TOMBOLA_CLUSTER_KEY") == true)
        #expect(message(["--redis", "redis://127.0.0.1:6379", "--cluster-key", short])?.contains("exactly 32 bytes") == true)
        #expect(message(["--redis", "redis://127.0.0.1:6379", "--cluster-key", "/nonexistent/key"])?.contains("cannot read") == true)
        #expect(message(["--redis", "redis://127.0.0.1:6379"], ["TOMBOLA_CLUSTER_KEY": "abcd"])?.contains("64 hex digits") == true)
        #expect(message(["--cluster-key", short])?.contains("need --redis") == true)
        #expect(message(["--allow-unsafe-redis"])?.contains("need --redis") == true)
        // The key's bytes never appear in a message.
        let secret = String(repeating: "5a", count: 31) + "zz"
        #expect(message(["--redis", "redis://127.0.0.1:6379"], ["TOMBOLA_CLUSTER_KEY": secret])?.contains(secret) == false)
    }
}
