import CCurl
import Glibc

/// One attempt's outcome: the HTTP status, or the transport error (then `status` is 0).
public struct WebhookAttempt: Sendable, Equatable {
    public var status: Int
    public var error: String?
    /// Refused before sending (a private address, plain http): trying again cannot help.
    public var refused = false

    public var delivered: Bool { error == nil && (200...299).contains(status) }
    /// Worth trying again: no answer, a timeout, a rate limit or a server error.
    public var retryable: Bool { !refused && (error != nil || status == 408 || status == 429 || status >= 500) }
}

/// One POST with libcurl's easy interface, on the calling thread (a dispatcher's own, never an
/// event loop): connects only to `address` (the target's name resolved and checked before),
/// follows no redirect, reads at most 64 KiB of the answer and throws it away.
enum WebhookPoster {
    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func post(_ target: WebhookTarget, address: String, body: [UInt8], headers: [String], timeoutMillis: Int) -> WebhookAttempt {
        guard ready, let handle = curl_easy_init() else { return WebhookAttempt(status: 0, error: "libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        let pinned = "\(target.host.contains(":") ? "[\(target.host)]" : target.host):\(target.port):"
            + (address.contains(":") ? "[\(address)]" : address)
        let resolve = curl_slist_append(nil, pinned)
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer {
            curl_slist_free_all(resolve)
            curl_slist_free_all(list)
        }
        _ = tombola_curl_setopt_string(handle, CURLOPT_URL, target.url)
        _ = tombola_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = tombola_curl_setopt_pointer(handle, CURLOPT_RESOLVE, resolve)
        _ = tombola_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, list)
        _ = tombola_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = tombola_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMillis)
        _ = tombola_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMillis)
        _ = tombola_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = tombola_curl_setopt_long(handle, CURLOPT_MAXFILESIZE, 65536)
        _ = tombola_curl_setopt_string(handle, CURLOPT_USERAGENT, "tombola-webhook")
        _ = tombola_curl_setopt_long(handle, CURLOPT_POST, 1)
        _ = tombola_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
        _ = tombola_curl_setopt_write(handle) { _, size, count, _ in size * count }
        let code: CURLcode = body.withUnsafeBufferPointer { buffer in
            _ = tombola_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
            return curl_easy_perform(handle)
        }
        var status = 0
        _ = tombola_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard code == CURLE_OK else {
            return WebhookAttempt(status: 0, error: curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)")
        }
        return WebhookAttempt(status: status, error: nil)
    }
}
