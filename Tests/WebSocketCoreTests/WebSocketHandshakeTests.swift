import Testing
@testable import WebSocketCore

@Suite struct WebSocketHandshakeTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    static func request(_ extra: [(name: String, value: String)] = [], removing: Set<String> = []) -> [(name: String, value: String)] {
        let base: [(name: String, value: String)] = [
            ("Host", "tombola.local:8080"), ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
        return base.filter { !removing.contains($0.name) } + extra
    }

    // RFC 6455 §1.3 and §4.2.2 (the value printed there; sha1sum agrees).
    @Test func computesTheRFCSampleAcceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: Self.key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func acceptsAValidUpgrade() {
        let result = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: Self.request(),
                                                 configuration: .init(deflate: nil))
        #expect(result.isAccepted)
        #expect(result.headers.map { "\($0.name): \($0.value)" } == [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
        ])
        #expect(String(decoding: result.responseHead, as: UTF8.self).hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
    }

    @Test func matchesUpgradeAndConnectionTokensCaseInsensitively() {
        let result = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: Self.request(
            [("upgrade", "WebSocket"), ("CONNECTION", "UPGRADE")], removing: ["Upgrade", "Connection"]))
        #expect(result.isAccepted)
    }

    @Test func writesTheWholeResponseHeadForAnAcceptAndARefusal() {
        let accepted = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: Self.request(),
                                                   configuration: .init(deflate: nil))
        #expect(String(decoding: accepted.responseHead, as: UTF8.self)
            == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        let refused = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: Self.request(
            [("Sec-WebSocket-Version", "8")], removing: ["Sec-WebSocket-Version"]))
        #expect(String(decoding: refused.responseHead, as: UTF8.self)
            == "HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test func splitsListsOnCommasAndTrimsOnlySpacesAndTabs() {
        #expect(HTTPTokens.list(" \tkeep-alive ,, Upgrade\t, ") == ["keep-alive", "Upgrade"])
        #expect(HTTPTokens.list("") == [])
        #expect(HTTPTokens.list(",") == [])
        // Non-ASCII text stays whole inside its element.
        #expect(HTTPTokens.list("h\u{E9}llo, w\u{F6}rld") == ["h\u{E9}llo", "w\u{F6}rld"])
        #expect(HTTPTokens.trim("\t \t") == "")
        #expect(HTTPTokens.trim(" a b ") == "a b")
    }

    @Test func comparesTokensByASCIICaseOnly() {
        #expect(HTTPTokens.contains(["keep-alive, UPGRADE"], token: "upgrade"))
        #expect(HTTPTokens.contains(["x", "Upgrade"], token: "upgrade"))
        #expect(!HTTPTokens.contains(["upgrades"], token: "upgrade"))
        #expect(!HTTPTokens.contains(["up grade"], token: "upgrade"))
        // U+212A KELVIN SIGN lowercases to "k" in Unicode; a header token is ASCII and must not match.
        #expect(!HTTPTokens.contains(["\u{212A}eep-alive"], token: "keep-alive"))
    }

    static let failures: [(String, String, String, [(name: String, value: String)], Set<String>, WebSocketHandshakeError, Int)] = [
        ("POST", "POST", "HTTP/1.1", [], [], .methodNotAllowed, 405),
        ("HTTP/1.0", "GET", "HTTP/1.0", [], [], .unsupportedHTTPVersion, 505),
        ("no Upgrade", "GET", "HTTP/1.1", [], ["Upgrade"], .missingUpgradeHeader, 400),
        ("Upgrade: h2c", "GET", "HTTP/1.1", [("Upgrade", "h2c")], ["Upgrade"], .missingUpgradeHeader, 400),
        ("Connection: keep-alive", "GET", "HTTP/1.1", [("Connection", "keep-alive")], ["Connection"], .missingConnectionUpgrade, 400),
        ("no version", "GET", "HTTP/1.1", [], ["Sec-WebSocket-Version"], .unsupportedVersion, 426),
        ("version 8", "GET", "HTTP/1.1", [("Sec-WebSocket-Version", "8")], ["Sec-WebSocket-Version"], .unsupportedVersion, 426),
        ("no key", "GET", "HTTP/1.1", [], ["Sec-WebSocket-Key"], .invalidKey, 400),
        ("short key", "GET", "HTTP/1.1", [("Sec-WebSocket-Key", "c2hvcnQ=")], ["Sec-WebSocket-Key"], .invalidKey, 400),
        ("non-base64 key", "GET", "HTTP/1.1", [("Sec-WebSocket-Key", "!!!!!!!!!!!!!!!!!!!!!!==")], ["Sec-WebSocket-Key"], .invalidKey, 400),
        ("two keys", "GET", "HTTP/1.1", [("Sec-WebSocket-Key", key)], [], .invalidKey, 400),
        ("foreign origin", "GET", "HTTP/1.1", [("Origin", "https://evil.example")], [], .forbiddenOrigin, 403),
        ("origin on another port", "GET", "HTTP/1.1", [("Origin", "http://tombola.local:9090")], [], .forbiddenOrigin, 403),
        ("null origin", "GET", "HTTP/1.1", [("Origin", "null")], [], .forbiddenOrigin, 403),
    ]

    @Test(arguments: failures.indices)
    func rejectsBadUpgrades(_ index: Int) {
        let (name, method, version, extra, removing, error, status) = Self.failures[index]
        let result = WebSocketHandshake.validate(method: method, version: version,
                                                 headers: Self.request(extra, removing: removing))
        #expect(result.error == error, "\(name)")
        #expect(result.status == status, "\(name)")
        #expect(!result.isAccepted)
    }

    @Test func answersAWrongVersionWith426AndTheVersionWeSpeak() {
        let result = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1",
                                                 headers: Self.request([("Sec-WebSocket-Version", "7")], removing: ["Sec-WebSocket-Version"]))
        #expect(result.status == 426)
        #expect(result.headers.contains { $0.name == "Sec-WebSocket-Version" && $0.value == "13" })
        #expect(String(decoding: result.responseHead, as: UTF8.self).hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
    }

    static let origins: [(String, String, [String], Bool)] = [
        ("http://tombola.local:8080", "tombola.local:8080", [], true),
        ("http://TOMBOLA.local:8080", "tombola.local:8080", [], true),
        ("http://tombola.local", "tombola.local:80", [], true),
        ("https://tombola.local", "tombola.local", [], true),
        ("https://tombola.local:443", "tombola.local", [], true),
        ("http://[::1]:8080", "[::1]:8080", [], true),
        ("http://evil.example", "tombola.local", [], false),
        ("http://tombola.local.evil.example", "tombola.local", [], false),
        ("https://screen.example", "tombola.local", ["https://screen.example"], true),
        ("http://screen.example", "tombola.local", ["https://screen.example"], false),
        ("http://screen.example:3000", "tombola.local", ["screen.example:3000"], true),
        ("http://anything.example", "tombola.local", ["*"], true),
        ("null", "tombola.local", [], false),
    ]

    @Test(arguments: origins)
    func checksOriginsAgainstHostAndAllowList(_ origin: String, _ host: String, _ allowList: [String], _ allowed: Bool) {
        #expect(WebSocketHandshake.originIsAllowed(origin, host: host, allowList: allowList) == allowed)
    }

    @Test func allowsRequestsWithoutOrigin() {
        #expect(WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: Self.request()).isAccepted)
        let withOrigin = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1",
                                                     headers: Self.request([("Origin", "http://tombola.local:8080")]))
        #expect(withOrigin.isAccepted)
    }

    @Test func choosesOurMostPreferredOfferedSubprotocol() {
        let result = WebSocketHandshake.validate(
            method: "GET", version: "HTTP/1.1", headers: Self.request([("Sec-WebSocket-Protocol", "chat, tombola.v1")]),
            configuration: .init(subprotocols: ["tombola.v1", "chat"]))
        #expect(result.subprotocol == "tombola.v1")
        #expect(result.headers.contains { $0.name == "Sec-WebSocket-Protocol" && $0.value == "tombola.v1" })
        let none = WebSocketHandshake.validate(
            method: "GET", version: "HTTP/1.1", headers: Self.request([("Sec-WebSocket-Protocol", "other")]),
            configuration: .init(subprotocols: ["tombola.v1"]))
        #expect(none.isAccepted && none.subprotocol == nil)
    }

    @Test func negotiatesPermessageDeflateInTheResponse() {
        let result = WebSocketHandshake.validate(
            method: "GET", version: "HTTP/1.1",
            headers: Self.request([("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")]))
        #expect(result.headers.last?.name == "Sec-WebSocket-Extensions")
        #expect(result.headers.last?.value == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
        #expect(result.deflate == PerMessageDeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true))
    }

    @Test func clientBuildsARequestAndValidatesTheServersAnswer() throws {
        let client = WebSocketClientHandshake(host: "tombola.local:8080", path: "/ws/echo", deflate: true,
                                              nonce: Array("the sample nonce".utf8))
        #expect(client.key == Self.key)
        let text = String(decoding: client.request, as: UTF8.self)
        #expect(text.hasPrefix("GET /ws/echo HTTP/1.1\r\nHost: tombola.local:8080\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))

        // Feed the request through the server side, and its answer back to the client.
        let request = try #require(try WebSocketClientHandshake.parseResponseHead(
            Array(text.replacing("GET /ws/echo HTTP/1.1", with: "HTTP/1.1 000 X").utf8)))
        let result = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: request.headers)
        #expect(result.isAccepted)
        let head = result.responseHead + [0x81, 0x00]
        #expect(try WebSocketClientHandshake.parseResponseHead(Array(head.prefix(20))) == nil)
        let response = try #require(try WebSocketClientHandshake.parseResponseHead(head))
        #expect(response.headLength == head.count - 2)
        let outcome = try client.validate(response)
        #expect(outcome.deflate == result.deflate)
    }

    @Test func clientRejectsAWrongAcceptValue() throws {
        let client = WebSocketClientHandshake(host: "h", nonce: Array(repeating: 1, count: 16))
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        let response = try #require(try WebSocketClientHandshake.parseResponseHead(Array(head.utf8)))
        #expect(throws: WebSocketHandshakeError.invalidAccept) { try client.validate(response) }
        let refused = try #require(try WebSocketClientHandshake.parseResponseHead(Array("HTTP/1.1 403 Forbidden\r\n\r\n".utf8)))
        #expect(throws: WebSocketHandshakeError.unexpectedStatus(403)) { try client.validate(refused) }
    }
}
