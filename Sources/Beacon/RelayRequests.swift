import CCurl
import Glibc

/// One relay's answer to one GET: its HTTP status and body, or why there is none.
struct RelayAnswer: Sendable {
    let relay: String
    let status: Int
    let body: [UInt8]
    /// Transport failure (timeout, refused, too large, TLS); nil when an HTTP answer came.
    let error: String?
    /// The error is the request's own time limit running out.
    var timedOut = false
}

/// Plain GETs with libcurl's multi interface: every URL at once on the calling thread (never an
/// event loop), each bounded by `timeoutMillis` and `maxBytes`, no redirects, HTTPS only unless
/// `allowHTTP`.
enum RelayRequests {
    /// libcurl's global state, set up once before the first handle (thread-safe lazy global).
    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// The body collected by the write callback; refuses (aborts the transfer) past `limit`.
    final class Sink {
        var bytes: [UInt8] = []
        let limit: Int
        var tooLarge = false
        init(limit: Int) { self.limit = limit }
    }

    static func get(_ requests: [(relay: String, url: String)], allowHTTP: Bool, timeoutMillis: Int, maxBytes: Int) -> [RelayAnswer] {
        guard ready, let multi = curl_multi_init() else {
            return requests.map { RelayAnswer(relay: $0.relay, status: 0, body: [], error: "libcurl could not start") }
        }
        defer { curl_multi_cleanup(multi) }
        var handles = [(handle: UnsafeMutableRawPointer, sink: Sink, relay: String)]()
        var answers = [String: RelayAnswer]()
        for request in requests {
            guard let handle = curl_easy_init() else {
                answers[request.relay] = RelayAnswer(relay: request.relay, status: 0, body: [], error: "libcurl could not start")
                continue
            }
            let sink = Sink(limit: maxBytes)
            _ = tombola_curl_setopt_string(handle, CURLOPT_URL, request.url)
            _ = tombola_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, allowHTTP ? "http,https" : "https")
            _ = tombola_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = tombola_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMillis)
            _ = tombola_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMillis)
            _ = tombola_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            _ = tombola_curl_setopt_long(handle, CURLOPT_MAXFILESIZE, maxBytes)
            _ = tombola_curl_setopt_string(handle, CURLOPT_USERAGENT, "tombola-beacon")
            _ = tombola_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
            _ = tombola_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            _ = tombola_curl_setopt_write(handle) { data, size, count, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                guard sink.bytes.count + length <= sink.limit else {
                    sink.tooLarge = true
                    return 0
                }
                data!.withMemoryRebound(to: UInt8.self, capacity: length) {
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                }
                return length
            }
            curl_multi_add_handle(multi, handle)
            handles.append((handle, sink, request.relay))
        }
        var running: Int32 = 1
        while running > 0 {
            guard curl_multi_perform(multi, &running) == CURLM_OK else { break }
            if running > 0 { _ = curl_multi_poll(multi, nil, 0, 200, nil) }
        }
        var results = [String: CURLcode]()
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            if message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle {
                results["\(UInt(bitPattern: handle))"] = message.pointee.data.result
            }
        }
        for (handle, sink, relay) in handles {
            let code = results["\(UInt(bitPattern: handle))"] ?? CURLE_OPERATION_TIMEDOUT
            var status = 0
            _ = tombola_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            curl_multi_remove_handle(multi, handle)
            curl_easy_cleanup(handle)
            if sink.tooLarge || code == CURLE_FILESIZE_EXCEEDED {
                answers[relay] = RelayAnswer(relay: relay, status: status, body: [], error: "answer larger than \(maxBytes) bytes")
            } else if code != CURLE_OK {
                let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
                answers[relay] = RelayAnswer(relay: relay, status: status, body: [], error: text,
                                             timedOut: code == CURLE_OPERATION_TIMEDOUT)
            } else {
                answers[relay] = RelayAnswer(relay: relay, status: status, body: sink.bytes, error: nil)
            }
        }
        return requests.compactMap { answers[$0.relay] }
    }
}
