import DrawEngine
import Glibc
import Posix

/// Where a draw takes its beacon from: a chain and the relays that serve it.
public struct BeaconSource: Sendable, Equatable {
    public let chain: BeaconChain
    public let relays: [String]

    public init(chain: BeaconChain = .quicknet, relays: [String] = BeaconChain.defaultRelays) {
        self.chain = chain
        self.relays = relays
    }

    /// How many relays must answer with the same value: two, or one when only one is configured.
    public var quorum: Int { min(2, relays.count) }
}

/// What fetching one round gave: its value (the relays that agreed on it), or why the round is void.
public enum BeaconOutcome: Sendable, Equatable {
    case value(BeaconValue, relays: [String])
    case failed(String)
}

/// Fetches a drand round from several relays with libcurl (docs/FAIRNESS.md §13): every relay
/// is asked until `quorum` of them gave the same valid value, one of them gives an invalid value
/// (randomness ≠ SHA-256(signature), another round, not JSON), two valid values differ, or the
/// deadline passes. Blocking: call it on a thread of its own (`fetch(…, then:)`).
public struct BeaconClient: Sendable {
    /// Each GET's limit (connect + answer).
    public var requestTimeoutMillis = 2_000
    /// Pause between two attempts at a relay that has no value yet (a round not out, an error).
    public var retryMillis = 500
    /// Larger answers are refused (a drand round is about 300 bytes).
    public var maxBytes = 4_096
    /// How long after a round is due its value may take before the round is void (§13).
    public static let defaultWaitMillis: Int64 = 10_000

    /// Plain-HTTP relays (tests, a relay on the LAN): only when the server is told so.
    public var allowHTTP = false

    public init(allowHTTP: Bool = false) {
        self.allowHTTP = allowHTTP
    }

    /// nil when `url` is acceptable as a relay base (`https://host[:port][/path]`, or `http://` when
    /// allowed), else why not.
    public static func relayProblem(_ url: String, allowHTTP: Bool) -> String? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            guard allowHTTP else { return "relay \(url) is not https (plain http needs --allow-http)" }
            rest = url.dropFirst(7)
        } else {
            return "relay \(url) is not an https URL"
        }
        guard url.utf8.count <= 200, !rest.isEmpty, !rest.hasPrefix("/"),
              url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }) else {
            return "relay \(url) is not a plain URL"
        }
        return nil
    }

    /// `{relay}/{chain}/public/{round}`.
    public static func url(relay: String, chain: BeaconChain, round: UInt64) -> String {
        var base = relay
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/\(chain.hash)/public/\(round)"
    }

    /// Asks the relays for `round` until an outcome or `deadlineMillis` (Unix ms). Blocks its
    /// caller (libcurl, and pauses between tries): a thread of its own (`fetch(then:)`), never a
    /// loop or a shared worker.
    public func fetch(_ source: BeaconSource, round: UInt64, deadlineMillis: Int64) -> BeaconOutcome {
        for relay in source.relays {
            if let problem = Self.relayProblem(relay, allowHTTP: allowHTTP) { return .failed(problem) }
        }
        guard source.quorum >= 1 else { return .failed("no relay configured") }
        var values = [String: BeaconValue]()
        var lastError = [String: String]()
        while true {
            let asking = source.relays.filter { values[$0] == nil }
            let budget = Int(max(1, min(Int64(requestTimeoutMillis), deadlineMillis - Self.nowMillis())))
            let answers = RelayRequests.get(asking.map { ($0, Self.url(relay: $0, chain: source.chain, round: round)) },
                                            allowHTTP: allowHTTP, timeoutMillis: budget, maxBytes: maxBytes)
            for answer in answers {
                if let error = answer.error {
                    // A last try cut short by the deadline says less than what the relay did before.
                    let cutShort = answer.timedOut && budget < requestTimeoutMillis
                    if !cutShort || lastError[answer.relay] == nil { lastError[answer.relay] = error }
                } else if answer.status != 200 {
                    lastError[answer.relay] = "HTTP \(answer.status)"
                } else {
                    switch BeaconValue.parse(answer.body, round: round) {
                    case .success(let value): values[answer.relay] = value
                    case .failure(let problem): return .failed("relay \(answer.relay): \(problem) (round \(round))")
                    }
                }
            }
            let distinct = Set(values.values.map(\.signature))
            if distinct.count > 1 { return .failed("relays disagree on round \(round)") }
            if values.count >= source.quorum, let value = values.values.first {
                return .value(value, relays: source.relays.filter { values[$0] != nil })
            }
            let now = Self.nowMillis()
            if now >= deadlineMillis {
                let heard = values.count
                let detail = source.relays.filter { values[$0] == nil }.map { "\($0): \(lastError[$0] ?? "no answer")" }
                    .joined(separator: "; ")
                return .failed("\(heard) of \(source.quorum) relays needed answered round \(round) in time (\(detail))")
            }
            let pause = min(Int64(retryMillis), deadlineMillis - now)
            if pause > 0 { usleep(useconds_t(pause * 1000)) }
        }
    }

    /// `fetch` on a detached thread of its own (`DetachedThread`: its waits between tries block
    /// only that thread); `then` runs there with the outcome (hop back to the event loop from it).
    /// If the system refuses a thread, `then` gets a failure at once rather than blocking the caller.
    public func fetch(_ source: BeaconSource, round: UInt64, deadlineMillis: Int64,
                      then: @escaping @Sendable (BeaconOutcome) -> Void) {
        let client = self
        let fetch: @Sendable () -> Void = { then(client.fetch(source, round: round, deadlineMillis: deadlineMillis)) }
        if !DetachedThread.start(fetch) { then(.failed("the system refused a thread to fetch round \(round)")) }
    }

    /// Unix milliseconds, from `Posix`'s wall clock.
    public static func nowMillis() -> Int64 {
        Int64(WallClock.unixMilliseconds())
    }
}
