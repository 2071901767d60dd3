import CCrypto

/// Ed25519 signatures (RFC 8032, PureEdDSA) through libcrypto: a 32-byte seed is the private key,
/// its 32-byte public key and 64-byte signatures are what anyone checks. Signing is deterministic:
/// one key signs one message to one signature.
public struct Ed25519PrivateKey: Sendable {
    public static let seedByteCount = 32
    public static let publicKeyByteCount = 32
    public static let signatureByteCount = 64

    /// The seed (RFC 8032 §5.1.5's private key): what a key file holds.
    public let seed: [UInt8]
    public let publicKey: [UInt8]

    /// The key of `seed` (32 bytes); nil for any other length.
    public init?(seed: [UInt8]) {
        guard seed.count == Self.seedByteCount else { return nil }
        guard let key = seed.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }) else { return nil }
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: Self.publicKeyByteCount)
        var length = publicKey.count
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == Self.publicKeyByteCount else { return nil }
        self.seed = seed
        self.publicKey = publicKey
    }

    /// A new key from libcrypto's CSPRNG.
    public static func generate() -> Ed25519PrivateKey {
        guard let key = Ed25519PrivateKey(seed: SecureRandom.bytes(count: seedByteCount)) else {
            preconditionFailure("libcrypto refused an Ed25519 seed")
        }
        return key
    }

    /// The 64-byte signature of `message`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        let key = seed.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count) }
        guard let key, let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto refused an Ed25519 key") }
        defer { EVP_MD_CTX_free(context); EVP_PKEY_free(key) }
        var signature = [UInt8](repeating: 0, count: Self.signatureByteCount)
        var length = signature.count
        // Ed25519 hashes the message itself: no digest is named (nil), and the message goes in one call.
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestSignInit(context, nil, nil, nil, key) == 1
                ? EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count) : 0
        }
        precondition(status == 1 && length == Self.signatureByteCount, "Ed25519 signing failed")
        return signature
    }
}

public enum Ed25519 {
    /// Whether `signature` is `publicKey`'s signature of `message`; false for malformed keys or signatures.
    public static func verify(publicKey: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        guard publicKey.count == Ed25519PrivateKey.publicKeyByteCount, signature.count == Ed25519PrivateKey.signatureByteCount else {
            return false
        }
        guard let key = publicKey.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }) else { return false }
        guard let context = EVP_MD_CTX_new() else { EVP_PKEY_free(key); return false }
        defer { EVP_MD_CTX_free(context); EVP_PKEY_free(key) }
        return message.withUnsafeBufferPointer { input in
            signature.withUnsafeBufferPointer { signature in
                EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
                    && EVP_DigestVerify(context, signature.baseAddress, signature.count, input.baseAddress, input.count) == 1
            }
        }
    }
}
