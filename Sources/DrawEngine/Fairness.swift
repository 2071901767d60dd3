/// The derivation of docs/FAIRNESS.md, shared by the draw and the verifier.
public enum Fairness {
    public static let algorithm = "tombola-hmac-sha256-v1"
    /// Rounds of a list whose entrants hold different numbers of tickets (§5, "Weighted lists").
    public static let weightedAlgorithm = "tombola-hmac-sha256-weighted-v1"
    /// At most this many contributions are mixed into one round (the smallest, once sorted).
    public static let maxContributions = 10_000

    /// `entropy` of docs/FAIRNESS.md §4 (raw 32 bytes). `contributions` must be sorted and distinct.
    public static func entropyDigest(contributions: [Contribution], audience: String?) -> [UInt8] {
        var message = Array("tombola-entropy-v1".utf8) + [0]
        message += bigEndian(UInt64(contributions.count))
        for contribution in contributions { message += contribution.bytes }
        if let audience {
            let digits = Array(audience.utf8)
            message += [1] + bigEndian(UInt64(digits.count)) + digits
        } else {
            message.append(0)
        }
        return Hashing.sha256(message)
    }

    /// The eligible positions (0 ≤ p < n) of the `count` winners, in draw order (§5).
    public static func winnerPositions(
        seed: Seed, round: Int, poolHash: [UInt8], entropy: [UInt8], eligible n: UInt64, count k: Int
    ) -> [UInt64] {
        precondition(UInt64(k) <= n && poolHash.count == 32 && entropy.count == 32)
        var stream = WordStream(seed: seed, round: round, poolHash: poolHash, entropy: entropy)
        var swaps = [UInt64: UInt64]()
        var positions = [UInt64]()
        positions.reserveCapacity(k)
        for i in 0..<UInt64(k) {
            let j = i + stream.uniform(n - i)
            let ai = swaps[i] ?? i
            let aj = swaps[j] ?? j
            swaps[j] = ai
            positions.append(aj)
        }
        return positions
    }

    /// The eligible positions of the `count` winners of a weighted list, in draw order (§5):
    /// `weights[p]` is the tickets of eligible position p. Each pick takes `t = uniform(W)` over
    /// the tickets W still in the round and the position whose ticket interval holds t; the
    /// winner's tickets then leave the round.
    public static func weightedPositions(
        seed: Seed, round: Int, poolHash: [UInt8], entropy: [UInt8], weights: [UInt64], count k: Int
    ) -> [UInt64] {
        let n = weights.count
        precondition(k <= n && poolHash.count == 32 && entropy.count == 32 && weights.allSatisfy { $0 >= 1 })
        var stream = WordStream(seed: seed, round: round, poolHash: poolHash, entropy: entropy, algorithm: weightedAlgorithm)
        // Fenwick tree over the weights: tree[i] sums weights (i − lowbit(i), i], 1-based.
        var tree = [UInt64](repeating: 0, count: n + 1)
        var total: UInt64 = 0
        for (offset, weight) in weights.enumerated() {
            let i = offset + 1
            tree[i] += weight
            total += weight
            let parent = i + (i & -i)
            if parent <= n { tree[parent] += tree[i] }
        }
        var top = 1
        while top * 2 <= n { top *= 2 }
        var positions = [UInt64]()
        positions.reserveCapacity(k)
        for _ in 0..<k {
            var t = stream.uniform(total)
            // The largest prefix whose sum is ≤ t: the winner is the next position.
            var position = 0
            var step = top
            while step > 0 {
                if position + step <= n, tree[position + step] <= t {
                    position += step
                    t -= tree[position]
                }
                step /= 2
            }
            positions.append(UInt64(position))
            let weight = weights[position]
            total -= weight
            var i = position + 1
            while i <= n {
                tree[i] -= weight
                i += i & -i
            }
        }
        return positions
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }
    }
}

/// The HMAC-SHA-256 counter-mode stream of 64-bit words (§5).
struct WordStream {
    private let key: [UInt8]
    private let prefix: [UInt8]
    private var counter: UInt64 = 0
    private var block: [UInt8] = []
    private var offset = 32

    init(seed: Seed, round: Int, poolHash: [UInt8], entropy: [UInt8], algorithm: String = Fairness.algorithm) {
        key = seed.bytes
        prefix = Array(algorithm.utf8) + [0] + Fairness.bigEndian(UInt64(round)) + poolHash + entropy
    }

    mutating func next() -> UInt64 {
        if offset == 32 {
            block = Hashing.hmacSHA256(key: key, message: prefix + Fairness.bigEndian(counter))
            counter += 1
            offset = 0
        }
        var word: UInt64 = 0
        for byte in block[offset..<offset + 8] { word = word << 8 | UInt64(byte) }
        offset += 8
        return word
    }

    /// Uniform in 0..<m by rejection: accept w < 2^64 − (2^64 mod m), return w mod m.
    mutating func uniform(_ m: UInt64) -> UInt64 {
        precondition(m >= 1)
        let r = (0 &- m) % m  // (2^64 − m) mod m == 2^64 mod m
        while true {
            let w = next()
            // w < 2^64 − r  ⇔  w ≤ UInt64.max − r
            if w <= UInt64.max - r { return w % m }
        }
    }
}
