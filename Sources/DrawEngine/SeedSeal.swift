import Crypto

/// A commitment's seed sealed with AES-256-GCM under a key kept apart from the records (the
/// cluster key in cluster mode, the data directory's `seed.key` on a single box), bound to its
/// draw and commitment: `hex(nonce) hex(ciphertext) hex(tag)` joined by '.'. What lets a restart
/// or a new owner carry a round on with the seed its commitment named (docs/FAIRNESS.md §14).
public enum SeedSeal {
    public static func seal(_ seed: Seed, key: [UInt8], code: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<AES256GCM.nonceByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard let box = try? AES256GCM.seal(seed.bytes, key: key, nonce: nonce, additionalData: aad(code, seed.commitment)) else { return "" }
        return [nonce, box.ciphertext, box.tag].map(Hex.encode).joined(separator: ".")
    }

    /// The seed, or nil when the seal is damaged, was made with another key, for another
    /// draw, or for another commitment.
    public static func open(_ text: String, key: [UInt8], code: String, commitment: String) -> Seed? {
        let parts = text.split(separator: ".").map { Hex.decode(String($0)) }
        guard parts.count == 3, let nonce = parts[0], let ciphertext = parts[1], let tag = parts[2],
              let bytes = try? AES256GCM.open(AES256GCM.SealedBox(ciphertext: ciphertext, tag: tag), key: key, nonce: nonce,
                                              additionalData: aad(code, commitment)) else { return nil }
        return Seed(bytes: bytes)
    }

    private static func aad(_ code: String, _ commitment: String) -> [UInt8] {
        Array("tombola-seed:\(code):\(commitment)".utf8)
    }
}
