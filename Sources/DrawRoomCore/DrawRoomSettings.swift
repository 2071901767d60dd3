import DrawEngine
import JSON

/// Settings all rooms share.
public struct DrawRoomSettings: Sendable {
    /// The body limit of a pool upload by default (`--max-pool-bytes`).
    public static let defaultMaxPoolBytes = 16 << 20

    /// Rolling ticks per second.
    public var tickHz = 20
    /// How long the Stop slow-down takes before it lands on the first winner.
    public var slowDown = Duration.milliseconds(1500)
    /// The body limit of a pool upload by a draw's host (`--max-pool-bytes`); every other request keeps 1 MiB.
    public var maxPoolBytes = DrawRoomSettings.defaultMaxPoolBytes
    /// Where beacon-sealed rounds take drand from (docs/FAIRNESS.md §13), on a single box and in
    /// cluster mode alike.
    public var beacon = BeaconSettings()
    /// The program writing the records, named by each `commit` record (issue #47); nil: none.
    public var software: SoftwareIdentity?
    /// The key that signs every record this server stores (issue #47); nil: records are stored
    /// unsigned. Per server (a service's settings), never process-wide: two servers in one process
    /// (the tests) sign with their own keys.
    public var signer: RecordSigner?
    /// New draws are private unless their settings say otherwise (`--private-draws`, issue #42).
    public var privateDraws = false
    /// Whether this server erases personal data on a draw's `retentionDays` (issue #41): a single
    /// box sweeps; cluster mode does not, so it refuses the setting (`not_supported`) rather than
    /// keep a promise nobody carries out.
    public var sweepsRetention = true
    /// The key prize vouchers are made with (issue 45, `VoucherCode`), derived from the server's
    /// signing key on a single box; nil: no vouchers (cluster mode, which does not keep hand-overs).
    public var voucherKey: [UInt8]?
    /// Renders a voucher's QR code as SVG (libqrencode, in the app), sent to the winner's phone
    /// with the code so that the code never travels in a URL; nil: no QR.
    public var qrSVG: (@Sendable (String) -> String?)?

    public init(tickHz: Int = 20, slowDown: Duration = .milliseconds(1500),
                maxPoolBytes: Int = DrawRoomSettings.defaultMaxPoolBytes, beacon: BeaconSettings = BeaconSettings(),
                software: SoftwareIdentity? = nil, signer: RecordSigner? = nil, privateDraws: Bool = false) {
        self.privateDraws = privateDraws
        self.beacon = beacon
        self.software = software
        self.signer = signer
        self.tickHz = tickHz
        self.slowDown = slowDown
        self.maxPoolBytes = maxPoolBytes
    }
}

/// The drand chain and relays beacon-sealed rounds use (`--beacon-relay`, `--beacon-chain` …).
public struct BeaconSettings: Sendable, Equatable {
    public var chain: BeaconChain
    public var relays: [String]
    /// Plain-HTTP relays accepted (`--beacon-allow-http`; tests, a relay on the LAN).
    public var allowHTTP: Bool
    /// How long after R is due its value may take before the round is void (ms).
    public var waitMillis: Int64

    public init(chain: BeaconChain = .quicknet, relays: [String] = BeaconChain.defaultRelays, allowHTTP: Bool = false,
                waitMillis: Int64 = 10_000) {
        self.chain = chain
        self.relays = relays
        self.allowHTTP = allowHTTP
        self.waitMillis = waitMillis
    }

    /// The longest a sealed Stop waits for its drand round: R is due at most the lock margin and
    /// one period after the lock, and may then take `waitMillis` before the round is void.
    public var longestWait: Duration {
        .milliseconds(BeaconSeal.lockMarginMillis + chain.period * 1000 + waitMillis)
    }
}

/// What a host command came to.
public struct CommandReply: Sendable, Equatable {
    /// `{"type":"ack","seq":n,"command":…}` plus command details (`duplicates`).
    public var ack: JSONValue
    /// The `result` message for `stop` (after the reveal) and `void`.
    public var result: JSONValue?

    public init(ack: JSONValue, result: JSONValue? = nil) {
        self.ack = ack
        self.result = result
    }
}

public struct CommandFailure: Error, Sendable, Equatable {
    public let code: String
    /// Extra members for the error body (check-in: the `field`, or the device's `entry`).
    public var detail: JSONValue? = nil

    public init(code: String, detail: JSONValue? = nil) {
        self.code = code
        self.detail = detail
    }
}

/// One entry for the audit log: who did what to a draw (never a key or other secret).
public struct AuditEntry: Sendable {
    /// `host`, `admin` or `system`.
    public var actor: String
    public var action: String
    public var detail: JSONValue = .object([:])

    public init(actor: String, action: String, detail: JSONValue = .object([:])) {
        self.actor = actor
        self.action = action
        self.detail = detail
    }
}

/// The alphabet of public codes: draws' (`DrawKeys.newCode`) and checked-in entrants' ids.
public enum DrawCodes {
    /// No 0/O, 1/I/L: a code read off a projector is typed right the first time.
    public static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ".utf8)
}

extension DrawConfig {
    /// The settings as stored (canonical JSON).
    public var storedText: String { json.canonicalString }

    /// The settings as pages see them: without entrant ids.
    public var publicText: String { publicJSON.canonicalString }
}
