import CCrypto

/// Bytes from libcrypto's CSPRNG (seeded by the kernel's getrandom(2)).
public enum SecureRandom {
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes(count: \(count))")
        var out = [UInt8](repeating: 0, count: count)
        let status = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        // RAND_bytes fails only when the kernel's entropy source is unreachable: carrying on
        // with zeros would hand out guessable secrets.
        precondition(status == 1, "RAND_bytes failed")
        return out
    }
}
