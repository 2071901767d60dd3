import Crypto

/// Server-side opening handshake (RFC 6455 §4.2), independent of any HTTP library: give it
/// the request method, version and a header lookup, get back the response to send.
public enum WebSocketHandshake {
    /// RFC 6455 §1.3.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    public struct Configuration: Sendable {
        /// Extra origins allowed besides the request's own Host: full origins
        /// (`https://example.com:8443`), bare `host[:port]`, or `*` for any.
        public var allowedOrigins: [String]
        /// Subprotocols we speak, most preferred first.
        public var subprotocols: [String]
        /// nil disables permessage-deflate.
        public var deflate: PerMessageDeflateConfiguration?

        public init(allowedOrigins: [String] = [], subprotocols: [String] = [],
                    deflate: PerMessageDeflateConfiguration? = PerMessageDeflateConfiguration()) {
            self.allowedOrigins = allowedOrigins
            self.subprotocols = subprotocols
            self.deflate = deflate
        }
    }

    public struct Result: Sendable {
        /// 101 on success, else the error's status.
        public var status: Int
        /// Response headers to send (in order).
        public var headers: [(name: String, value: String)]
        public var error: WebSocketHandshakeError?
        /// The negotiated permessage-deflate parameters, nil without the extension.
        public var deflate: PerMessageDeflateParameters?
        public var subprotocol: String?

        public var isAccepted: Bool { status == 101 }

        /// The whole HTTP/1.1 response head, for servers that write it themselves.
        public var responseHead: [UInt8] {
            let reason = switch status {
            case 101: "Switching Protocols"
            case 403: "Forbidden"
            case 405: "Method Not Allowed"
            case 426: "Upgrade Required"
            case 505: "HTTP Version Not Supported"
            default: "Bad Request"
            }
            // Appended as bytes: every accepted WebSocket writes one, and string interpolation
            // cost a tenth of a viewer's join (scripts/callgrind joins).
            var head = [UInt8]()
            head.reserveCapacity(160 + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
            head.append(contentsOf: "HTTP/1.1 ".utf8)
            head.append(contentsOf: String(status).utf8)
            head.append(0x20)
            head.append(contentsOf: reason.utf8)
            head.append(contentsOf: [0x0D, 0x0A])
            for (name, value) in headers {
                head.append(contentsOf: name.utf8)
                head.append(contentsOf: [0x3A, 0x20])
                head.append(contentsOf: value.utf8)
                head.append(contentsOf: [0x0D, 0x0A])
            }
            if status != 101 { head.append(contentsOf: "Content-Length: 0\r\nConnection: close\r\n".utf8) }
            head.append(contentsOf: [0x0D, 0x0A])
            return head
        }

        static func failure(_ error: WebSocketHandshakeError) -> Result {
            var headers: [(name: String, value: String)] = []
            switch error {
            case .unsupportedVersion: headers.append(("Sec-WebSocket-Version", "13"))  // RFC 6455 §4.4
            case .methodNotAllowed: headers.append(("Allow", "GET"))
            default: break
            }
            return Result(status: error.status, headers: headers, error: error)
        }
    }

    /// `Sec-WebSocket-Accept` for a key: base64(SHA-1(key + GUID)) (RFC 6455 §4.2.2).
    public static func acceptValue(forKey key: String) -> String {
        let digest = SHA1.hash(Array((key + guid).utf8))
        return Base64.encode(digest)
    }

    /// Validates an upgrade request. `headers` returns every value of a header, looked up by
    /// its lower-case name (empty when absent).
    public static func validate(method: String, version: String, headers: (String) -> [String],
                                configuration: Configuration = Configuration()) -> Result {
        guard method == "GET" else { return .failure(.methodNotAllowed) }
        guard version == "HTTP/1.1" else { return .failure(.unsupportedHTTPVersion) }
        guard HTTPTokens.contains(headers("upgrade"), token: "websocket") else { return .failure(.missingUpgradeHeader) }
        guard HTTPTokens.contains(headers("connection"), token: "upgrade") else { return .failure(.missingConnectionUpgrade) }
        let versions = headers("sec-websocket-version").flatMap { HTTPTokens.list($0) }
        guard versions == ["13"] else { return .failure(.unsupportedVersion) }
        let keys = headers("sec-websocket-key")
        guard keys.count == 1, let key = Optional(String(HTTPTokens.trim(keys[0]))),
              Base64.decode(key)?.count == 16 else { return .failure(.invalidKey) }
        let origins = headers("origin")
        if !origins.isEmpty {
            guard origins.count == 1,
                  originIsAllowed(String(HTTPTokens.trim(origins[0])), host: headers("host").first,
                                  allowList: configuration.allowedOrigins)
            else { return .failure(.forbiddenOrigin) }
        }

        var result = Result(status: 101, headers: [
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", acceptValue(forKey: key)),
        ], error: nil)
        let offered = headers("sec-websocket-protocol").flatMap { HTTPTokens.list($0) }
        if let chosen = configuration.subprotocols.first(where: { offered.contains(Substring($0)) }) {
            result.subprotocol = chosen
            result.headers.append(("Sec-WebSocket-Protocol", chosen))
        }
        if let deflate = configuration.deflate,
           let (parameters, response) = PerMessageDeflate.negotiate(offers: headers("sec-websocket-extensions"),
                                                                    configuration: deflate) {
            result.deflate = parameters
            result.headers.append(("Sec-WebSocket-Extensions", response))
        }
        return result
    }

    /// Convenience: headers as name/value pairs (names compared case-insensitively).
    public static func validate(method: String, version: String, headers: [(name: String, value: String)],
                                configuration: Configuration = Configuration()) -> Result {
        validate(method: method, version: version, headers: { wanted in
            headers.filter { $0.name.lowercased() == wanted }.map(\.value)
        }, configuration: configuration)
    }

    /// An Origin (RFC 6454 serialization) is allowed when its host[:port] equals the Host
    /// header (default ports ignored) or it appears in the allow-list.
    public static func originIsAllowed(_ origin: String, host: String?, allowList: [String]) -> Bool {
        if allowList.contains("*") { return true }
        let origin = origin.lowercased()
        guard let schemeEnd = origin.firstRange(of: "://") else {
            return allowList.contains { $0.lowercased() == origin }  // "null" and the like
        }
        let scheme = String(origin[..<schemeEnd.lowerBound])
        let authority = normalizedAuthority(String(origin[schemeEnd.upperBound...]), scheme: scheme)
        if let host, normalizedAuthority(String(HTTPTokens.trim(host)).lowercased(), scheme: scheme) == authority {
            return true
        }
        return allowList.contains { entry in
            let entry = entry.lowercased()
            if let entrySchemeEnd = entry.firstRange(of: "://") {
                let entryScheme = String(entry[..<entrySchemeEnd.lowerBound])
                return entryScheme == scheme
                    && normalizedAuthority(String(entry[entrySchemeEnd.upperBound...]), scheme: scheme) == authority
            }
            return normalizedAuthority(entry, scheme: scheme) == authority
        }
    }

    /// host[:port] without a trailing slash and without the scheme's default port.
    private static func normalizedAuthority(_ authority: String, scheme: String) -> String {
        var value = Substring(authority)
        while value.hasSuffix("/") { value = value.dropLast() }
        let defaultPort = (scheme == "https" || scheme == "wss") ? ":443" : ":80"
        if value.hasSuffix(defaultPort) { value = value.dropLast(defaultPort.count) }
        return String(value)
    }
}
