import Beacon
import DrawEngine
import Glibc
import Testing

/// Chain timing, the relay answer checks (with a real quicknet round) and fetching over real
/// loopback sockets from small canned relays.
@Suite struct BeaconTests {
    /// quicknet round 1000 as drand's relays serve it (public data).
    static let round1000 = #"{"round":1000,"randomness":"fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd","signature":"b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"}"#

    @Test func quicknetTiming() {
        let chain = BeaconChain.quicknet
        #expect(chain.isWellFormed)
        #expect(chain.dueMillis(of: 1) == 1_692_803_367_000)
        #expect(chain.dueMillis(of: 1000) == (1_692_803_367 + 999 * 3) * 1000)
        #expect(chain.firstRound(dueAtOrAfter: chain.dueMillis(of: 1000)) == 1000)
        #expect(chain.firstRound(dueAtOrAfter: chain.dueMillis(of: 1000) + 1) == 1001)
        #expect(chain.firstRound(dueAtOrAfter: chain.dueMillis(of: 1000) - 1) == 1000)
        #expect(chain.firstRound(dueAtOrAfter: 0) == 1)
    }

    @Test func realRoundParses() throws {
        let value = try BeaconValue.parse(Array(Self.round1000.utf8), round: 1000).get()
        #expect(value.randomness == "fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd")
        #expect(value.randomnessMatchesSignature)
    }

    @Test func refusedAnswers() {
        func problem(_ text: String, round: UInt64 = 1000) -> BeaconProblem? {
            if case .failure(let problem) = BeaconValue.parse(Array(text.utf8), round: round) { return problem }
            return nil
        }
        #expect(problem(Self.round1000, round: 1001) == .wrongRound(1000))
        #expect(problem(Self.round1000.replacingOccurrences("fe290bec", "fe290bed")) == .randomnessMismatch)
        #expect(problem(Self.round1000.replacingOccurrences("b44679b9", "b44679b8")) == .randomnessMismatch)
        #expect(problem("[1]") == .notJSON)
        #expect(problem(#"{"round":1000,"randomness":"zz","signature":"00"}"#) == .badField("randomness"))
    }

    @Test func relayURLs() {
        #expect(BeaconClient.relayProblem("https://api.drand.sh", allowHTTP: false) == nil)
        #expect(BeaconClient.relayProblem("http://127.0.0.1:8080", allowHTTP: false) != nil)
        #expect(BeaconClient.relayProblem("http://127.0.0.1:8080", allowHTTP: true) == nil)
        #expect(BeaconClient.relayProblem("ftp://x", allowHTTP: true) != nil)
        #expect(BeaconClient.relayProblem("https://a b", allowHTTP: true) != nil)
        #expect(BeaconClient.url(relay: "https://r.example/", chain: .quicknet, round: 7)
                == "https://r.example/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/public/7")
    }

    @Test func twoRelaysAgree() throws {
        let a = try CannedRelay(body: Self.round1000)
        let b = try CannedRelay(body: Self.round1000)
        let outcome = client.fetch(BeaconSource(chain: .quicknet, relays: [a.url, b.url]), round: 1000,
                                   deadlineMillis: BeaconClient.nowMillis() + 5_000)
        guard case .value(let value, let relays) = outcome else { Issue.record("\(outcome)"); return }
        #expect(value.round == 1000 && relays == [a.url, b.url])
        #expect(a.requests.load() >= 1 && a.lastPath.contains("/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/public/1000"))
    }

    /// quicknet round 2's signature (a valid G1 point, another round), served as round 1000.
    static let round2As1000 = #"{"round":1000,"randomness":"5782d6987841c654515a0e72b2d1ebb4e741234042c37cb19608ae50d93fb60c","signature":"b6b6a585449b66eb12e875b64fcbab3799861a00e4dbf092d99e969a5eac57dd3f798acf61e705fe4f093db926626807"}"#

    @Test func aRelayServingAWrongSignatureIsSkippedAndRecorded() throws {
        let forged = #"{"round":1000,"randomness":"\#(sha256Hex(String(repeating: "ab", count: 48)))","signature":"\#(String(repeating: "ab", count: 48))"}"#
        for body in [forged, Self.round2As1000] {
            let a = try CannedRelay(body: Self.round1000)
            let b = try CannedRelay(body: body)
            let report = client.fetchReport(BeaconSource(chain: .quicknet, relays: [b.url, a.url]), round: 1000,
                                            deadlineMillis: BeaconClient.nowMillis() + 5_000)
            guard case .value(let value, let relays) = report.outcome else { Issue.record("\(report.outcome)"); continue }
            #expect(value.signature.hasPrefix("b44679b9") && relays == [a.url])
            #expect(report.skipped.map(\.relay) == [b.url])
            #expect(report.skipped.map(\.problem) == ["signature does not verify under the chain's public key"])
        }
    }

    @Test func tamperedRandomnessIsSkipped() throws {
        let a = try CannedRelay(body: Self.round1000.replacingOccurrences("fe290bec", "00000000"))
        let b = try CannedRelay(body: Self.round1000)
        let report = client.fetchReport(BeaconSource(chain: .quicknet, relays: [a.url, b.url]), round: 1000,
                                        deadlineMillis: BeaconClient.nowMillis() + 5_000)
        guard case .value(_, let relays) = report.outcome else { Issue.record("\(report.outcome)"); return }
        #expect(relays == [b.url] && report.skipped.map(\.problem) == ["randomness is not SHA-256(signature)"])
    }

    @Test func onlyInvalidValuesFailAtOnce() throws {
        let a = try CannedRelay(body: Self.round2As1000)
        let b = try CannedRelay(body: Self.round1000.replacingOccurrences("1000", "999"))
        let start = BeaconClient.nowMillis()
        let outcome = client.fetch(BeaconSource(chain: .quicknet, relays: [a.url, b.url]), round: 1000, deadlineMillis: start + 5_000)
        #expect(outcome == .failed("no relay served a valid round 1000 (\(a.url): signature does not verify under the chain's public key; "
                                   + "\(b.url): answered round 999)"))
        #expect(BeaconClient.nowMillis() - start < 4_000)
    }

    @Test func aValidValueUnderAnotherChainsKeyIsSkipped() throws {
        // quicknet's round 1000 where the server pins another key: never accepted.
        let other = BeaconChain(hash: String(repeating: "cd", count: 32),
                                publicKey: "b81be4e3f8eb3fdf11f1a8b915cee1d87418d7d595cd4e2cb621555e31f641457ab9b3f79ebd12784a5d0c4ee6c24e3911341b7d91a490601c60ff996f3bda003c785dec967be17b36a4a8bf6c29aad819a925113786e5f658b9ee0fdbb2ab53",
                                genesis: 1_692_803_367, period: 3)
        let a = try CannedRelay(body: Self.round1000)
        let outcome = client.fetch(BeaconSource(chain: other, relays: [a.url]), round: 1000, deadlineMillis: BeaconClient.nowMillis() + 5_000)
        #expect(outcome == .failed("no relay served a valid round 1000 (\(a.url): signature does not verify under the chain's public key)"))
    }

    @Test func oversizedAnswerAndNoRelayFailAtTheDeadline() throws {
        let big = try CannedRelay(body: String(repeating: " ", count: 10_000) + Self.round1000)
        let port = ClosedPort()
        let closed = "http://127.0.0.1:\(port.port)"
        let start = BeaconClient.nowMillis()
        let outcome = client.fetch(BeaconSource(chain: .quicknet, relays: [big.url, closed]), round: 1000, deadlineMillis: start + 3_000)
        let took = BeaconClient.nowMillis() - start
        guard case .failed(let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(reason.hasPrefix("no relay answered round 1000 in time"))
        #expect(reason.contains("larger than 4096 bytes"))
        #expect(took >= 3_000)
        withExtendedLifetime(port) {}
    }

    /// A relay that answered too much and then stalls: the last try, cut short by the deadline,
    /// does not hide what the relay did answer (CI once saw only "Timeout was reached").
    @Test func aTryCutShortByTheDeadlineKeepsTheRelaysEarlierError() throws {
        let big = try CannedRelay(body: String(repeating: " ", count: 10_000) + Self.round1000, answering: 1)
        let outcome = client.fetch(BeaconSource(chain: .quicknet, relays: [big.url]), round: 1000,
                                   deadlineMillis: BeaconClient.nowMillis() + 1_500)
        guard case .failed(let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(big.requests.load() >= 2)
        #expect(reason == "no relay answered round 1000 in time (\(big.url): answer larger than 4096 bytes)")
    }

    @Test func httpRelayRefusedUnlessAllowed() throws {
        let a = try CannedRelay(body: Self.round1000)
        let outcome = BeaconClient().fetch(BeaconSource(chain: .quicknet, relays: [a.url]), round: 1000,
                                           deadlineMillis: BeaconClient.nowMillis() + 1_000)
        #expect(outcome == .failed("relay \(a.url) is not https (plain http needs --allow-http)"))
        #expect(a.requests.load() == 0)
    }

    var client: BeaconClient {
        var client = BeaconClient(allowHTTP: true)
        client.retryMillis = 100
        return client
    }
}

func sha256Hex(_ hex: String) -> String {
    BeaconValue(round: 1, randomness: "", signature: hex).sha256OfSignature
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        replacing(target, with: replacement)
    }
}

/// A counter shared with the relay's thread.
final class Counter: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var value = 0
    init() { pthread_mutex_init(&lock, nil) }
    func add() { pthread_mutex_lock(&lock); value += 1; pthread_mutex_unlock(&lock) }
    func load() -> Int { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return value }
}

/// The last request line a relay read.
final class Seen: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var value = ""
    init() { pthread_mutex_init(&lock, nil) }
    func store(_ text: String) { pthread_mutex_lock(&lock); value = text; pthread_mutex_unlock(&lock) }
    func load() -> String { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return value }
}

/// A loopback HTTP/1.1 server that answers the first `answering` GETs with `body` (200, then
/// closes) and holds every later one open without an answer, as a stalled relay does.
final class CannedRelay: @unchecked Sendable {
    let url: String
    let requests = Counter()
    private let seen = Seen()
    var lastPath: String { seen.load() }
    private let fd: Int32

    init(body: String, answering: Int = .max) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 16)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        let response = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
        var thread = pthread_t()
        let requests = self.requests
        let seen = self.seen
        let box = Unmanaged.passRetained(Job {
            var held = [Int32]()
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    held.forEach { close($0) }
                    close(fd)  // here, not in deinit: the number must not be reused while accept runs
                    return
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = read(client, &buffer, buffer.count)
                if n > 0, let line = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\r\n").first {
                    seen.store(String(line))
                }
                requests.add()
                if requests.load() > answering {
                    held.append(client)
                    continue
                }
                _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }).toOpaque()
        pthread_create(&thread, nil, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_detach(thread)
    }

    deinit { shutdown(fd, Int32(SHUT_RDWR)) }

    final class Job: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}

/// A loopback port bound but not listening: connections to it are refused, and no other test
/// can take it while it lives.
final class ClosedPort {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let port: UInt16

    init() {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}
