import CCrypto

/// Why an AES-256-GCM seal or open failed.
public enum CryptoError: Error, Equatable, Sendable {
    /// The key is not 32 bytes.
    case invalidKeySize
    /// The nonce is not 12 bytes (NIST SP 800-38D §8.2: 96-bit IVs only).
    case invalidNonceSize
    /// The tag is not 16 bytes, or it does not match: wrong key, nonce, data or tag.
    case authenticationFailed
    /// libcrypto refused an operation it should not refuse.
    case libraryFailure
}

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag.
/// A nonce must never repeat under one key.
public enum AES256GCM {
    public static let keyByteCount = 32
    public static let nonceByteCount = 12
    public static let tagByteCount = 16

    /// Ciphertext (as long as the plaintext) and its tag.
    public struct SealedBox: Equatable, Sendable {
        public var ciphertext: [UInt8]
        public var tag: [UInt8]

        public init(ciphertext: [UInt8], tag: [UInt8]) {
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts `plaintext` and authenticates it together with `additionalData`.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], additionalData: [UInt8] = []
    ) throws(CryptoError) -> SealedBox {
        try check(key: key, nonce: nonce)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        let ciphertext = try run(encrypt: true, key: key, nonce: nonce, additionalData: additionalData, input: plaintext, tag: &tag)
        return SealedBox(ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts `box` if its tag proves it (and `additionalData`) unchanged; nothing otherwise.
    public static func open(
        _ box: SealedBox, key: [UInt8], nonce: [UInt8], additionalData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        try check(key: key, nonce: nonce)
        guard box.tag.count == tagByteCount else { throw .authenticationFailed }
        var tag = box.tag
        return try run(encrypt: false, key: key, nonce: nonce, additionalData: additionalData, input: box.ciphertext, tag: &tag)
    }

    private static func check(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        guard key.count == keyByteCount else { throw .invalidKeySize }
        guard nonce.count == nonceByteCount else { throw .invalidNonceSize }
    }

    /// One pass of EVP: additional data, then `input`; sealing reads the tag into `tag`,
    /// opening checks `tag` before returning any plaintext.
    private static func run(
        encrypt: Bool, key: [UInt8], nonce: [UInt8], additionalData: [UInt8], input: [UInt8], tag: inout [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard input.count < Int(Int32.max), additionalData.count < Int(Int32.max) else { throw .libraryFailure }
        guard let context = EVP_CIPHER_CTX_new() else { throw .libraryFailure }
        defer { EVP_CIPHER_CTX_free(context) }
        // GCM writes exactly as many bytes as it reads; the spare block keeps `baseAddress` non-nil.
        var output = [UInt8](repeating: 0, count: input.count + 16)
        let status: Int32 = key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in
                additionalData.withUnsafeBufferPointer { aad in
                    input.withUnsafeBufferPointer { input in
                        output.withUnsafeMutableBufferPointer { output in
                            tag.withUnsafeMutableBufferPointer { tag in
                                var length: Int32 = 0
                                if encrypt {
                                    guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key.baseAddress, nonce.baseAddress) == 1,
                                          aad.isEmpty || EVP_EncryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count)) == 1,
                                          input.isEmpty || EVP_EncryptUpdate(context, output.baseAddress, &length, input.baseAddress, Int32(input.count)) == 1,
                                          EVP_EncryptFinal_ex(context, output.baseAddress! + input.count, &length) == 1,
                                          EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), tag.baseAddress) == 1
                                    else { return -1 }
                                    return 1
                                }
                                guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key.baseAddress, nonce.baseAddress) == 1,
                                      aad.isEmpty || EVP_DecryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count)) == 1,
                                      input.isEmpty || EVP_DecryptUpdate(context, output.baseAddress, &length, input.baseAddress, Int32(input.count)) == 1,
                                      EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), tag.baseAddress) == 1
                                else { return -1 }
                                return EVP_DecryptFinal_ex(context, output.baseAddress! + input.count, &length) > 0 ? 1 : 0
                            }
                        }
                    }
                }
            }
        }
        if status < 0 { throw .libraryFailure }
        if status == 0 {
            // Nothing of an unauthenticated message leaves this function.
            for index in output.indices { output[index] = 0 }
            throw .authenticationFailed
        }
        output.removeLast(16)
        return output
    }
}
