/// The seeded randomness and clock every sample export draws with (`tombola verify --sample-export …`):
/// the same seed gives the same export, byte for byte, which the committed fixtures rely on.
struct SampleRandomness {
    private var random: SplitMix64
    private var clock: Int64

    init(seed: UInt64, clock: Int64 = 1_764_455_400_000) {
        random = SplitMix64(state: seed)
        self.clock = clock
    }

    /// The next record's time: 1.25 s after the previous one.
    mutating func now() -> Int64 {
        clock += 1_250
        return clock
    }

    /// `count` audience contributions of 16 bytes each.
    mutating func contributions(_ count: Int) -> [Contribution] {
        (0..<count).map { _ in
            let a = random.next(), b = random.next()
            return Contribution(hex: Hex.encode(Fairness.bigEndian(a) + Fairness.bigEndian(b)))!
        }
    }

    /// A commitment seed.
    mutating func seed() -> Seed { .random(using: &random) }
}
