import BLS12381
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
}

/// What fetching one round gave: its value (the relays that served it), or why there is none.
public enum BeaconOutcome: Sendable, Equatable {
    case value(BeaconValue, relays: [String])
    case failed(String)
}

/// A fetch's outcome and the relays skipped for serving an invalid value, with why.
public struct BeaconFetchReport: Sendable, Equatable {
    public let outcome: BeaconOutcome
    /// Relay → problem, in the order of the source's relays.
    public let skipped: [(relay: String, problem: String)]

    public static func == (a: BeaconFetchReport, b: BeaconFetchReport) -> Bool {
        a.outcome == b.outcome && a.skipped.map(\.relay) == b.skipped.map(\.relay) && a.skipped.map(\.problem) == b.skipped.map(\.problem)
    }
}

/// Fetches a drand round from several relays with libcurl (docs/FAIRNESS.md §13). A relay's
/// answer is a value only when it is that round's, randomness = SHA-256(signature) and the BLS
/// signature verifies under the chain's pinned public key; then it is *the* value (a BLS
/// signature is unique: two valid values cannot differ), so the first one is accepted, with every
/// relay that served it in the same pass. A relay that serves anything else (not JSON, another
/// round, a wrong signature) is recorded and skipped, never asked again, and the others still
/// count; there is no value when the deadline passes or every relay was skipped. Blocking: call it
/// on a thread of its own (`fetch(…, then:)`).
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
        fetchReport(source, round: round, deadlineMillis: deadlineMillis).outcome
    }

    /// `fetch`, with the relays skipped for an invalid value.
    public func fetchReport(_ source: BeaconSource, round: UInt64, deadlineMillis: Int64) -> BeaconFetchReport {
        for relay in source.relays {
            if let problem = Self.relayProblem(relay, allowHTTP: allowHTTP) { return BeaconFetchReport(outcome: .failed(problem), skipped: []) }
        }
        guard !source.relays.isEmpty else { return BeaconFetchReport(outcome: .failed("no relay configured"), skipped: []) }
        guard let key = Hex.decode(source.chain.publicKey).flatMap(BLSSignature.PublicKey.init) else {
            return BeaconFetchReport(outcome: .failed("the chain's public key is not a BLS12-381 G2 point"), skipped: [])
        }
        var skipped = [String: String]()
        var lastError = [String: String]()
        func report(_ outcome: BeaconOutcome) -> BeaconFetchReport {
            BeaconFetchReport(outcome: outcome, skipped: source.relays.compactMap { relay in skipped[relay].map { (relay, $0) } })
        }
        while true {
            let asking = source.relays.filter { skipped[$0] == nil }
            let budget = Int(max(1, min(Int64(requestTimeoutMillis), deadlineMillis - Self.nowMillis())))
            let answers = RelayRequests.get(asking.map { ($0, Self.url(relay: $0, chain: source.chain, round: round)) },
                                            allowHTTP: allowHTTP, timeoutMillis: budget, maxBytes: maxBytes)
            var values = [String: BeaconValue]()
            for answer in answers {
                if let error = answer.error {
                    // A last try cut short by the deadline says less than what the relay did before.
                    let cutShort = answer.timedOut && budget < requestTimeoutMillis
                    if !cutShort || lastError[answer.relay] == nil { lastError[answer.relay] = error }
                } else if answer.status != 200 {
                    lastError[answer.relay] = "HTTP \(answer.status)"
                } else {
                    switch BeaconValue.parse(answer.body, round: round) {
                    case .success(let value) where value.signatureVerifies(under: key): values[answer.relay] = value
                    case .success: skipped[answer.relay] = BeaconProblem.badSignature.description
                    case .failure(let problem): skipped[answer.relay] = problem.description
                    }
                }
            }
            if let value = values.values.first {
                // Unique signatures: a second valid value that differs would be a broken check.
                guard Set(values.values.map(\.signature)).count == 1 else { return report(.failed("relays disagree on round \(round)")) }
                return report(.value(value, relays: source.relays.filter { values[$0] != nil }))
            }
            let invalid = source.relays.filter { skipped[$0] != nil }.map { "\($0): \(skipped[$0]!)" }
            if invalid.count == source.relays.count {
                return report(.failed("no relay served a valid round \(round) (" + invalid.joined(separator: "; ") + ")"))
            }
            let now = Self.nowMillis()
            if now >= deadlineMillis {
                let detail = source.relays.map { relay in
                    skipped[relay].map { "\(relay): \($0)" } ?? "\(relay): \(lastError[relay] ?? "no answer")"
                }
                return report(.failed("no relay answered round \(round) in time (" + detail.joined(separator: "; ") + ")"))
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

    /// `fetchReport` on a detached thread of its own, as `fetch(…, then:)`: the room records the
    /// relays skipped for an invalid value (log and audit entry).
    public func fetchReport(_ source: BeaconSource, round: UInt64, deadlineMillis: Int64,
                            then: @escaping @Sendable (BeaconFetchReport) -> Void) {
        let client = self
        let fetch: @Sendable () -> Void = { then(client.fetchReport(source, round: round, deadlineMillis: deadlineMillis)) }
        if !DetachedThread.start(fetch) {
            then(BeaconFetchReport(outcome: .failed("the system refused a thread to fetch round \(round)"), skipped: []))
        }
    }

    /// Unix milliseconds, from `Posix`'s wall clock.
    public static func nowMillis() -> Int64 {
        Int64(WallClock.unixMilliseconds())
    }
}
