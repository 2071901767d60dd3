import CCurl
import Crypto
import Glibc

/// Asks an RFC 3161 time-stamping authority to stamp a SHA-256 digest (RFC 3161 §3.4: an HTTP
/// POST of `application/timestamp-query`, the answer `application/timestamp-reply`). Blocking:
/// call it off any event loop. HTTP or HTTPS (a token proves itself: its signature, not the
/// transport, is what a reader checks), no redirects, bounded in time and size.
public enum TimeStampFetch {
    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// The TSA's granted answer (DER TimeStampResp) for `digest`, checked to stamp that digest;
    /// or why there is none.
    public static func stamp(digest: [UInt8], url: String, timeoutMillis: Int = 10_000) -> Result<[UInt8], TimeStampFetchError> {
        let nonce = SecureRandom.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch post(TimeStamp.request(digest: digest, nonce: nonce), to: url, timeoutMillis: timeoutMillis, maxBytes: 64 * 1024) {
        case .failure(let error):
            return .failure(error)
        case .success(let answer):
            guard let token = TimeStamp.inspect(response: answer), token.digest == digest else {
                return .failure(TimeStampFetchError(reason: "the TSA's answer is not a granted time-stamp of this digest"))
            }
            return .success(answer)
        }
    }

    final class Sink {
        var bytes: [UInt8] = []
        let limit: Int
        init(limit: Int) { self.limit = limit }
    }

    static func post(_ body: [UInt8], to url: String, timeoutMillis: Int, maxBytes: Int) -> Result<[UInt8], TimeStampFetchError> {
        guard ready, let handle = curl_easy_init() else { return .failure(TimeStampFetchError(reason: "libcurl could not start")) }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Content-Type: application/timestamp-query")
        headers = curl_slist_append(headers, "Accept: application/timestamp-reply")
        defer { curl_slist_free_all(headers) }
        let sink = Sink(limit: maxBytes)
        let code: CURLcode = body.withUnsafeBufferPointer { payload in
            _ = tombola_curl_setopt_string(handle, CURLOPT_URL, url)
            _ = tombola_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = tombola_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = tombola_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMillis)
            _ = tombola_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            _ = tombola_curl_setopt_long(handle, CURLOPT_MAXFILESIZE, maxBytes)
            _ = tombola_curl_setopt_string(handle, CURLOPT_USERAGENT, "tombola-timestamp")
            _ = tombola_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
            _ = tombola_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, payload.count)
            _ = tombola_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: payload.baseAddress))
            _ = tombola_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            _ = tombola_curl_setopt_write(handle) { data, size, count, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                guard sink.bytes.count + length <= sink.limit else { return 0 }
                data!.withMemoryRebound(to: UInt8.self, capacity: length) {
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                }
                return length
            }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            return .failure(TimeStampFetchError(reason: curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"))
        }
        var status = 0
        _ = tombola_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard status == 200 else { return .failure(TimeStampFetchError(reason: "HTTP \(status)")) }
        return .success(sink.bytes)
    }
}

public struct TimeStampFetchError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}
