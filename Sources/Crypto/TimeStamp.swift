import CCrypto

/// RFC 3161 time-stamps of SHA-256 digests through libcrypto's TS code: the request a server
/// sends a time-stamping authority (TSA), what its answer says, and the full check of the answer
/// against a trusted CA (what `openssl ts -verify -digest … -CAfile …` does).
public enum TimeStamp {
    /// What a granted answer states.
    public struct Token: Sendable, Equatable {
        /// The SHA-256 digest the TSA stamped.
        public let digest: [UInt8]
        /// The TSA's time, GeneralizedTime text (`20261204235500Z`).
        public let genTime: String
    }

    /// A DER TimeStampReq (RFC 3161 §2.4.1) for the SHA-256 `digest`: version 1, a 64-bit nonce,
    /// certReq TRUE (the answer carries the TSA's certificate, so a CA file alone checks it).
    public static func request(digest: [UInt8], nonce: UInt64) -> [UInt8] {
        precondition(digest.count == 32, "a SHA-256 digest")
        let algorithm: [UInt8] = [0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00]
        let imprint: [UInt8] = [0x30, 0x31] + algorithm + [0x04, 0x20] + digest
        // DER INTEGER: the fewest bytes, a 0x00 in front when the top bit is set (a TSA refuses padding).
        var value = Array((0..<8).map { UInt8(truncatingIfNeeded: nonce >> (56 - 8 * UInt64($0))) }.drop { $0 == 0 })
        if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        let nonceBytes: [UInt8] = [0x02, UInt8(value.count)] + value
        let body: [UInt8] = [0x02, 0x01, 0x01] + imprint + nonceBytes + [0x01, 0x01, 0xff]
        return [0x30, UInt8(body.count)] + body
    }

    /// The digest and time of a granted TimeStampResp over SHA-256; nil for anything else
    /// (unreadable, not granted, another digest algorithm). Its signature is not checked here.
    public static func inspect(response: [UInt8]) -> Token? {
        withResponse(response) { answer -> Token? in
            guard let status = TS_RESP_get_status_info(answer), let code = TS_STATUS_INFO_get0_status(status),
                  [0, 1].contains(ASN1_INTEGER_get(code)),  // granted, grantedWithMods
                  let info = TS_RESP_get_tst_info(answer), let imprint = TS_TST_INFO_get_msg_imprint(info),
                  let algorithm = TS_MSG_IMPRINT_get_algo(imprint), let message = TS_MSG_IMPRINT_get_msg(imprint),
                  let time = TS_TST_INFO_get_time(info) else { return nil }
            var object: OpaquePointer? = nil
            X509_ALGOR_get0(&object, nil, nil, algorithm)
            guard let object, OBJ_obj2nid(object) == NID_sha256 else { return nil }
            return Token(digest: bytes(of: message), genTime: String(decoding: bytes(of: time), as: UTF8.self))
        }
    }

    /// Whether `response` is a granted time-stamp of `digest` whose signature chains to a
    /// certificate in the PEM file `caFile` (version, signature, imprint; RFC 3161 §2.4.2).
    public static func verify(response: [UInt8], digest: [UInt8], caFile: String) -> Bool {
        withResponse(response) { answer -> Bool? in
            guard let context = TS_VERIFY_CTX_new() else { return false }
            defer { TS_VERIFY_CTX_free(context) }
            guard let store = X509_STORE_new() else { return false }
            _ = TS_VERIFY_CTX_set_store(context, store)  // the context owns the store from here
            guard X509_STORE_load_file(store, caFile) == 1 else { return false }
            guard let copy = CRYPTO_malloc(digest.count, nil, 0)?.assumingMemoryBound(to: UInt8.self) else { return false }
            copy.initialize(from: digest, count: digest.count)
            _ = TS_VERIFY_CTX_set_imprint(context, copy, digest.count)  // and the imprint
            _ = TS_VERIFY_CTX_set_flags(context, Int32(TS_VFY_VERSION | TS_VFY_SIGNATURE | TS_VFY_IMPRINT))
            return TS_RESP_verify_response(context, answer) == 1
        } ?? false
    }

    private static func withResponse<T>(_ response: [UInt8], _ body: (OpaquePointer) -> T?) -> T? {
        response.withUnsafeBufferPointer { buffer -> T? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let answer = d2i_TS_RESP(nil, &cursor, buffer.count) else { return nil }
            defer { TS_RESP_free(answer) }
            return body(answer)
        }
    }

    private static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }
}
