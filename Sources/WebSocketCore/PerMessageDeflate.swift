/// What both ends agreed for permessage-deflate (RFC 7692 §7). Window bits are the largest
/// LZ77 window each side may compress with.
public struct PerMessageDeflateParameters: Sendable, Equatable {
    public var serverNoContextTakeover: Bool
    public var clientNoContextTakeover: Bool
    public var serverMaxWindowBits: Int
    public var clientMaxWindowBits: Int

    public init(serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
                serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// Whether the end in `role` must reset its compressor after each message.
    public func sendsWithoutContextTakeover(as role: WebSocketRole) -> Bool {
        role == .server ? serverNoContextTakeover : clientNoContextTakeover
    }

    /// Whether the peer of `role` resets its compressor after each message.
    public func receivesWithoutContextTakeover(as role: WebSocketRole) -> Bool {
        role == .server ? clientNoContextTakeover : serverNoContextTakeover
    }

    /// The window the end in `role` compresses with.
    public func sendWindowBits(as role: WebSocketRole) -> Int {
        role == .server ? serverMaxWindowBits : clientMaxWindowBits
    }
}

/// The server's permessage-deflate policy.
public struct PerMessageDeflateConfiguration: Sendable, Equatable {
    /// The largest window we compress with, 8...15 (8 means Huffman-only coding).
    public var serverMaxWindowBits: Int
    /// The window we ask clients to stay within when they allow us to choose (8...15).
    public var clientMaxWindowBits: Int
    /// Always announced, so one compressed broadcast frame is valid for every client.
    public var serverNoContextTakeover: Bool
    /// Asks clients to reset per message, so we keep no inflate state between messages.
    public var clientNoContextTakeover: Bool
    /// zlib level for what we send.
    public var compressionLevel: Int
    /// zlib memLevel for our compressors (1...9); lower uses less memory per stream.
    public var memoryLevel: Int
    /// Messages shorter than this are sent uncompressed.
    public var compressionThreshold: Int

    public init(serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15,
                serverNoContextTakeover: Bool = true, clientNoContextTakeover: Bool = true,
                compressionLevel: Int = 6, memoryLevel: Int = 8, compressionThreshold: Int = 256) {
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
        self.compressionThreshold = compressionThreshold
    }
}

/// permessage-deflate negotiation (RFC 7692 §7.1).
public enum PerMessageDeflate {
    public static let extensionName = "permessage-deflate"

    /// One parsed element of a `Sec-WebSocket-Extensions` list.
    public struct ExtensionElement: Sendable, Equatable {
        public var name: String
        /// Lower-cased parameter names with their unquoted values.
        public var parameters: [(name: String, value: String?)]

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
        }
    }

    /// Parses `Sec-WebSocket-Extensions` header values (RFC 6455 §9.1) into elements, in order.
    /// Read byte by byte (the delimiters are ASCII, and so are the names it is compared with):
    /// every browser's join carries this header, and reading it by characters cost a fifth of a join.
    public static func parseExtensions(_ headerValues: [String]) -> [ExtensionElement] {
        var elements: [ExtensionElement] = []
        for headerValue in headerValues {
            for element in HTTPTokens.list(headerValue) {
                let parts = HTTPTokens.split(element, at: UInt8(ascii: ";")).map { HTTPTokens.trim($0) }
                let parameters: [(name: String, value: String?)] = parts.dropFirst().map { part in
                    guard let equals = part.utf8.firstIndex(of: UInt8(ascii: "=")) else { return (HTTPTokens.asciiLowercased(part), nil) }
                    var value = HTTPTokens.trim(part[part.utf8.index(after: equals)...])
                    let bytes = value.utf8
                    if bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") {
                        value = value[bytes.index(after: bytes.startIndex)..<bytes.index(before: bytes.endIndex)]
                    }
                    return (HTTPTokens.asciiLowercased(HTTPTokens.trim(part[..<equals])), String(value))
                }
                elements.append(ExtensionElement(name: HTTPTokens.asciiLowercased(parts[0]), parameters: parameters))
            }
        }
        return elements
    }

    /// A window-bits value: "8"..."15" exactly (RFC 7692 §7.1.2: 1*DIGIT in 8–15, no leading zero).
    static func windowBits(_ value: String?) -> Int? {
        guard let value, let bits = Int(value), (8...15).contains(bits), String(bits) == value else { return nil }
        return bits
    }

    /// What one client offer asks for; nil when it breaks RFC 7692's rules.
    struct Offer: Equatable {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var serverMaxWindowBits: Int?
        /// nil: not offered; .some(nil): offered without a value.
        var clientMaxWindowBits: Int??

        init?(_ element: ExtensionElement) {
            guard element.name == PerMessageDeflate.extensionName else { return nil }
            var seen = Set<String>()
            for (name, value) in element.parameters {
                // RFC 7692 §7: an offer with a repeated or unknown parameter must be declined.
                guard seen.insert(name).inserted else { return nil }
                switch name {
                case "server_no_context_takeover":
                    guard value == nil else { return nil }
                    serverNoContextTakeover = true
                case "client_no_context_takeover":
                    guard value == nil else { return nil }
                    clientNoContextTakeover = true
                case "server_max_window_bits":
                    guard let bits = PerMessageDeflate.windowBits(value) else { return nil }
                    serverMaxWindowBits = bits
                case "client_max_window_bits":
                    if let value {
                        guard let bits = PerMessageDeflate.windowBits(value) else { return nil }
                        clientMaxWindowBits = .some(bits)
                    } else {
                        clientMaxWindowBits = .some(nil)
                    }
                default:
                    return nil
                }
            }
        }
    }

    /// Picks the first acceptable permessage-deflate offer among the client's
    /// `Sec-WebSocket-Extensions` values and returns what we agree to plus our response value.
    /// Invalid or unsatisfiable offers are skipped; nil means "no extension", never a failure.
    public static func negotiate(offers headerValues: [String], configuration: PerMessageDeflateConfiguration)
        -> (parameters: PerMessageDeflateParameters, response: String)?
    {
        for element in parseExtensions(headerValues) {
            guard let offer = Offer(element) else { continue }
            // zlib has no raw 8-bit window; for 8 our DeflateStream codes Huffman-only (no
            // back-references), which every receiver window accepts.
            let serverBits = min(configuration.serverMaxWindowBits, offer.serverMaxWindowBits ?? 15)
            var response = [extensionName]
            var parameters = PerMessageDeflateParameters(serverMaxWindowBits: serverBits)
            if offer.serverNoContextTakeover || configuration.serverNoContextTakeover {
                parameters.serverNoContextTakeover = true
                response.append("server_no_context_takeover")
            }
            // RFC 7692 §7.1.1.2: a server may ask for client_no_context_takeover unprompted.
            if offer.clientNoContextTakeover || configuration.clientNoContextTakeover {
                parameters.clientNoContextTakeover = true
                response.append("client_no_context_takeover")
            }
            // RFC 7692 §7.1.2.1: answer server_max_window_bits only when offered.
            if offer.serverMaxWindowBits != nil {
                response.append("server_max_window_bits=\(serverBits)")
            }
            // RFC 7692 §7.1.2.2: client_max_window_bits only if the client said it supports it.
            if let clientOffer = offer.clientMaxWindowBits {
                let clientBits = min(configuration.clientMaxWindowBits, clientOffer ?? 15)
                parameters.clientMaxWindowBits = clientBits
                if clientBits < 15 || clientOffer != nil { response.append("client_max_window_bits=\(clientBits)") }
            }
            return (parameters, response.joined(separator: "; "))
        }
        return nil
    }

    /// The offer our client sends.
    public static let clientOffer = "permessage-deflate; client_max_window_bits"

    /// Validates a server's response to `clientOffer` (RFC 7692 §7.1): exactly one
    /// permessage-deflate element with known, well-formed parameters. nil when there is none;
    /// throws when the response is unacceptable (the client must then fail the connection).
    public static func acceptResponse(_ headerValues: [String]) throws(WebSocketHandshakeError) -> PerMessageDeflateParameters? {
        let elements = parseExtensions(headerValues)
        guard !elements.isEmpty else { return nil }
        guard elements.count == 1, let offer = Offer(elements[0]) else { throw .unsupportedExtension }
        var parameters = PerMessageDeflateParameters(
            serverNoContextTakeover: offer.serverNoContextTakeover,
            clientNoContextTakeover: offer.clientNoContextTakeover,
            serverMaxWindowBits: offer.serverMaxWindowBits ?? 15)
        if case .some(let bits) = offer.clientMaxWindowBits {
            guard let bits else { throw .unsupportedExtension }  // a response must carry a value
            parameters.clientMaxWindowBits = bits
        }
        return parameters
    }
}
