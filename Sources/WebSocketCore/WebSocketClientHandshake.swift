/// Client-side opening handshake (RFC 6455 §4.1): builds the request and checks the response.
public struct WebSocketClientHandshake: Sendable {
    /// The response head, once it has arrived in full.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        /// Bytes of the head including the blank line; what follows is WebSocket data.
        public var headLength: Int

        /// Every value of a header, by case-insensitive name.
        public func values(_ name: String) -> [String] {
            let wanted = name.lowercased()
            return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
        }
    }

    /// What the handshake settled, for a successful 101.
    public struct Outcome: Sendable {
        public var response: Response
        public var deflate: PerMessageDeflateParameters?
        public var subprotocol: String?
    }

    public static let maxResponseHeadSize = 16 * 1024

    /// `Sec-WebSocket-Key`: base64 of 16 random bytes.
    public let key: String
    public let offersDeflate: Bool
    public let subprotocols: [String]
    /// The request bytes to send.
    public let request: [UInt8]

    /// - Parameters:
    ///   - host: the `Host` header value (host[:port]).
    ///   - nonce: 16 random bytes for the key (RFC 6455 §4.1: randomly selected).
    public init(host: String, path: String = "/", headers: [(name: String, value: String)] = [],
                deflate: Bool = false, subprotocols: [String] = [], nonce: [UInt8]) {
        precondition(nonce.count == 16, "RFC 6455 §4.1: the key is 16 bytes")
        key = Base64.encode(nonce)
        offersDeflate = deflate
        self.subprotocols = subprotocols
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if deflate { text += "Sec-WebSocket-Extensions: \(PerMessageDeflate.clientOffer)\r\n" }
        if !subprotocols.isEmpty { text += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        request = Array(text.utf8)
    }

    /// Parses the response head at the start of `bytes`; nil while it is incomplete.
    public static func parseResponseHead(_ bytes: [UInt8]) throws(WebSocketHandshakeError) -> Response? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard let end = firstIndex(of: terminator, in: bytes) else {
            if bytes.count > maxResponseHeadSize { throw .malformedResponse }
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        let statusParts = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw .malformedResponse
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedResponse }
            headers.append((String(line[..<colon]), String(HTTPTokens.trim(line[line.index(after: colon)...]))))
        }
        return Response(status: status, headers: headers, headLength: end + 4)
    }

    /// Checks a complete response head against our request (RFC 6455 §4.1, client steps 1–6).
    public func validate(_ response: Response) throws(WebSocketHandshakeError) -> Outcome {
        guard response.status == 101 else { throw .unexpectedStatus(response.status) }
        guard HTTPTokens.contains(response.values("upgrade"), token: "websocket") else { throw .missingUpgradeHeader }
        guard HTTPTokens.contains(response.values("connection"), token: "upgrade") else { throw .missingConnectionUpgrade }
        guard response.values("sec-websocket-accept").map({ String(HTTPTokens.trim($0)) })
                == [WebSocketHandshake.acceptValue(forKey: key)] else { throw .invalidAccept }
        var deflate: PerMessageDeflateParameters?
        let extensions = response.values("sec-websocket-extensions")
        if !extensions.isEmpty {
            guard offersDeflate else { throw .unsupportedExtension }
            deflate = try PerMessageDeflate.acceptResponse(extensions)
        }
        var subprotocol: String?
        let protocols = response.values("sec-websocket-protocol")
        if !protocols.isEmpty {
            guard protocols.count == 1, subprotocols.contains(String(HTTPTokens.trim(protocols[0]))) else {
                throw .unexpectedSubprotocol
            }
            subprotocol = String(HTTPTokens.trim(protocols[0]))
        }
        return Outcome(response: response, deflate: deflate, subprotocol: subprotocol)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }
}
