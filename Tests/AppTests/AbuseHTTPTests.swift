import Glibc
import HTTPCore
import Posix
import Testing
@testable import App
@testable import Server
import TestSupport

/// Hostile HTTP clients against the real server (`tombola`, a child process of its own) on
/// loopback: each attack is bounded and ends in seconds; a normal client's latency is measured
/// during it, and the server's memory (its own VmRSS) and connections must return to where they were.
@Suite(.serialized) struct AbuseHTTPTests {
    /// Latency a normal request may take while an attack runs. Generous because CI machines are
    /// small and shared (2.5 s was seen for a debug server on 2 cores with a load average of 18);
    /// a server the attack blocks would answer only once the attack's connections time out
    /// (10 s or more in every test here) or never.
    static let latencyBudget = 6000.0 * Abuse.slowdown
    /// Memory an attack may leave behind once it is over (allocator slack, caches).
    static let memorySlack = 24 * Abuse.mebibyte * Abuse.memoryFactor

    @Test func thousandSlowlorisConnectionsNeitherDelayANormalClientNorOutliveTheHeaderTimeout() throws {
        #expect(Abuse.raiseFileLimit(to: 4096) >= 2100, "the test needs ~2,100 descriptors")
        let server = try ChildServer(["--header-timeout", "15"])
        defer { server.stop() }
        _ = try Abuse.worstLatency(of: server)
        let baseline = server.residentBytes()
        var slow: [BlockingSocket] = []
        for i in 0..<1000 {
            let socket = try server.socket()
            try socket.send("GET /?n=\(i) HTTP/1.1\r\nHost: t\r\n")
            slow.append(socket)
        }
        for socket in slow { try socket.send("X-Trickle: ") }  // bytes keep coming; the deadline must not move
        let during = try Abuse.worstLatency(of: server, count: 10)
        #expect(during < Self.latencyBudget, "normal request took \(during) ms during the attack")
        #expect(try Abuse.openConnections(of: server) >= 1000)

        // The 408 comes at the 15 s header timeout, later than the socket's own 5 s receive timeout.
        #expect(waitUntil(timeout: .seconds(60)) { slow[0].unreadByteCount > 0 })
        var reader = ResponseReader(socket: slow[0])
        #expect(try reader.next().status == 408)
        #expect(try Abuse.eventually(within: .seconds(20)) { try Abuse.openConnections(of: server) == 0 })
        slow.removeAll()
        let after = server.residentBytes()
        #expect(after - baseline < Self.memorySlack, "RSS \(baseline) → \(after)")
    }

    static let bombs: [String: (bytes: String, status: Int)] = [
        "a 1 MiB header value": ("GET / HTTP/1.1\r\nHost: t\r\nX-Bomb: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n", 431),
        "10,000 header fields": ("GET / HTTP/1.1\r\nHost: t\r\n" + String(repeating: "X-A: 1\r\n", count: 10_000) + "\r\n", 431),
        "a 1 MiB request line": ("GET /" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
        "a line without end": ("GET / HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "b", count: 200_000), 431),
        "a 1 GiB Content-Length": ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1073741824\r\n\r\nxx", 413),
        "a chunk size beyond the body limit": ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n", 413),
        "an overlong chunk-size line": ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5000) + "\r\n", 400),
    ]

    @Test(arguments: Array(bombs.keys).sorted())
    func headerBombsAreRefusedWithTheirStatusAndClosed(name: String) throws {
        let (bomb, status) = Self.bombs[name]!
        let server = try ChildServer()
        defer { server.stop() }
        let socket = try server.socket()
        // The server may stop reading and close before the whole bomb is sent.
        do { try socket.send(bomb) } catch { #expect(error.code == EPIPE || error.code == ECONNRESET, "\(name): \(error)") }
        var reader = ResponseReader(socket: socket)
        do {
            let response = try reader.next()
            #expect(response.status == status, "\(name)")
            #expect(response.headers["Connection"] == "close", "\(name)")
        } catch let error as POSIXError {
            // Unread bytes of the bomb can turn the server's close into a reset that discards the answer.
            #expect(error.code == ECONNRESET, "\(name): \(error)")
        }
        #expect(try Abuse.eventually(within: .seconds(10)) { try Abuse.openConnections(of: server) == 0 }, "\(name)")
    }

    @Test func concurrentHeaderBombsLeaveANormalClientFastAndMemoryFlat() throws {
        let server = try ChildServer()
        defer { server.stop() }
        _ = try Abuse.worstLatency(of: server)
        let baseline = server.residentBytes()
        let line = "X-Bomb: " + String(repeating: "z", count: 1000) + "\r\n"
        var bombers: [BlockingSocket] = []
        for _ in 0..<100 {
            let socket = try server.socket()
            try socket.send("GET / HTTP/1.1\r\nHost: t\r\n" + String(repeating: line, count: 15))  // just under the limit
            bombers.append(socket)
        }
        let during = try Abuse.worstLatency(of: server, count: 10)
        #expect(during < Self.latencyBudget, "normal request took \(during) ms with 100 half-sent 15 KB heads")
        for socket in bombers { try? socket.send(String(repeating: line, count: 10)) }
        var refused = 0
        for socket in bombers {
            var reader = ResponseReader(socket: socket)
            if let response = try? reader.next(), response.status == 431 { refused += 1 }
        }
        #expect(refused >= 90, "\(refused) of 100 got 431")
        bombers.removeAll()
        #expect(try Abuse.eventually(within: .seconds(10)) { try Abuse.openConnections(of: server) == 0 })
        let after = server.residentBytes()
        #expect(after - baseline < Self.memorySlack, "RSS \(baseline) → \(after)")
    }

    @Test func pipelinedGarbageIsAnswered400AndClosedWhileANormalClientIsServed() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix(seed: seed)
        let server = try ChildServer()
        defer { server.stop() }
        var attackers: [BlockingSocket] = []
        for _ in 0..<200 {
            let socket = try server.socket()
            // Some valid requests, then garbage: the valid ones are answered, the garbage ends the connection.
            var bytes = Array(String(repeating: "GET / HTTP/1.1\r\nHost: t\r\n\r\n", count: Int.random(in: 0...3, using: &rng)).utf8)
            bytes += (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try? socket.send(bytes)
            attackers.append(socket)
        }
        let during = try Abuse.worstLatency(of: server, count: 10)
        #expect(during < Self.latencyBudget, "seed \(seed): normal request took \(during) ms")
        #expect(try Abuse.eventually(within: .seconds(10)) { try Abuse.openConnections(of: server) == 0 }, "seed \(seed)")
        attackers.removeAll()
    }

    @Test func thousandsOfPipelinedRequestsOnOneConnectionAreAnsweredInOrder() throws {
        let server = try ChildServer()
        defer { server.stop() }
        let socket = try server.socket()
        var reader = ResponseReader(socket: socket)
        // Batches of 500 pipelined requests (more than the 32 the server reads ahead), 3,000 in all.
        for batch in 0..<6 {
            var requests = ""
            for i in 0..<500 { requests += "GET /\(i % 2 == 0 ? "" : "nope") HTTP/1.1\r\nHost: t\r\n\r\n" }
            try socket.send(requests)
            for i in 0..<500 {
                let status = try reader.next().status
                #expect(status == (i % 2 == 0 ? 200 : 404), "batch \(batch) response \(i)")
                if status != (i % 2 == 0 ? 200 : 404) { return }
            }
        }
    }

    @Test func aClientThatNeverReadsCannotMakeTheServerBufferWithoutBound() throws {
        let server = try ChildServer(["--idle-timeout", "10"])
        defer { server.stop() }
        _ = try Abuse.worstLatency(of: server)
        let baseline = server.residentBytes()
        // Each request is ~40 bytes and its answer (the metrics page) several KB: never reading
        // the answers must make the server stop reading, not queue them all.
        let socket = try BlockingSocket(host: "127.0.0.1", port: server.port, timeout: .milliseconds(300))
        let request = Array(String(repeating: "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n", count: 500).utf8)
        var sent = 0
        while sent < 40_000 {
            do { try socket.send(request) } catch { break }  // the send blocks once the server stops reading
            sent += 500
        }
        let during = try Abuse.worstLatency(of: server, count: 5)
        #expect(during < Self.latencyBudget, "normal request took \(during) ms")
        let grown = server.residentBytes() - baseline
        #expect(grown < 32 * Abuse.mebibyte * Abuse.memoryFactor, "RSS grew by \(grown / Abuse.mebibyte) MiB after \(sent) unread requests")
        // A stalled reader is dropped, not kept forever.
        #expect(try Abuse.eventually(within: .seconds(25)) { try Abuse.openConnections(of: server) == 0 })
    }

    @Test func closingConnectionsWhoseClientNeverReadsAreDroppedAfterTheIdleTimeout() throws {
        let big = String(repeating: "0123456789abcdef", count: 1 << 18)  // 4 MiB, more than socket buffers hold
        var files = TestServer.defaultFiles
        files["big.txt"] = big
        let server = try ChildServer(["--idle-timeout", "5"], files: files)
        defer { server.stop() }
        var stalled: [BlockingSocket] = []
        for _ in 0..<20 {
            let socket = try server.socket()
            try socket.send("GET /big.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            stalled.append(socket)
        }
        // All 20 open (well within the 5 s idle timeout), then all dropped by it.
        #expect(try Abuse.eventually(within: .seconds(4)) { try Abuse.openConnections(of: server) == 20 })
        #expect(try Abuse.eventually(within: .seconds(20)) { try Abuse.openConnections(of: server) == 0 })
        stalled.removeAll()
    }
}

extension AbuseHTTPTests {
    /// The back-pressure that stops a never-reading client must not stall one that reads slowly.
    @Test func pipelinedLargeResponsesStillReachAClientThatReadsSlowly() throws {
        let big = String(repeating: "0123456789abcdef", count: 1 << 17)  // 2 MiB, above the 1 MiB high-water mark
        var files = TestServer.defaultFiles
        files["big.txt"] = big
        let server = try ChildServer(["--idle-timeout", "5"], files: files)
        defer { server.stop() }
        let socket = try server.socket()
        try socket.send(String(repeating: "GET /big.txt HTTP/1.1\r\nHost: t\r\n\r\n", count: 3) + "GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(300_000)  // the subject: a client that reads nothing for 300 ms, so the queue fills and the server pauses
        var reader = ResponseReader(socket: socket)
        for i in 0..<3 {
            let response = try reader.next()
            #expect(response.status == 200 && response.body.count == big.utf8.count, "response \(i)")
        }
        #expect(try reader.next().text.contains("home"))
        try socket.send("GET /calc.html HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try reader.next().status == 200)
    }
}
