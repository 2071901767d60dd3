/// A drand chain the server binds rounds to (docs/FAIRNESS.md §13): its hash (the relays' URL
/// path), its BLS public key (pinned, checked by the script, never fetched), and its timing.
public struct BeaconChain: Sendable, Equatable {
    /// 64 lower-case hex: drand's chain hash.
    public let hash: String
    /// Lower-case hex of the compressed BLS12-381 G2 public key (96 bytes).
    public let publicKey: String
    /// Unix seconds when round 1 was due.
    public let genesis: Int64
    /// Seconds between rounds.
    public let period: Int64

    public init(hash: String, publicKey: String, genesis: Int64, period: Int64) {
        self.hash = hash
        self.publicKey = publicKey
        self.genesis = genesis
        self.period = period
    }

    /// The scheme every chain here uses: signatures on G1, public key on G2, message
    /// SHA-256(u64be(round)), RFC 9380 hash-to-curve with `dst`.
    public static let scheme = "bls-unchained-g1-rfc9380"
    public static let dst = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"

    /// The League of Entropy's quicknet (drand's `/{hash}/info`, pinned).
    public static let quicknet = BeaconChain(
        hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
        publicKey: "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
        genesis: 1_692_803_367, period: 3)

    /// Two League of Entropy relays run by different operators.
    public static let defaultRelays = ["https://api.drand.sh", "https://drand.cloudflare.com"]

    /// The League of Entropy's public relays a page asks itself for a quicknet round
    /// (Public/js/lib/room-link.js, `PUBLIC_RELAYS`; FAIRNESS.md §13).
    public static let publicRelays = ["https://api.drand.sh", "https://api2.drand.sh", "https://api3.drand.sh",
                                      "https://drand.cloudflare.com"]

    /// Unix milliseconds when `round` (≥ 1) is due: genesis + (round − 1) · period.
    public func dueMillis(of round: UInt64) -> Int64 {
        (genesis + Int64(round - 1) * period) * 1000
    }

    /// The first round due at or after `unixMillis` (round 1 before genesis).
    public func firstRound(dueAtOrAfter unixMillis: Int64) -> UInt64 {
        let since = unixMillis - genesis * 1000
        guard since > 0 else { return 1 }
        let step = period * 1000
        return UInt64((since + step - 1) / step) + 1
    }

    /// Is this a well-formed chain (hex of the right lengths, period ≥ 1)?
    public var isWellFormed: Bool {
        Hex.isLowercase(hash, byteCount: 32) && Hex.isLowercase(publicKey, byteCount: 96) && period >= 1 && genesis > 0
    }
}

