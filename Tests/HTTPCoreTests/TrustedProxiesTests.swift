import Testing
@testable import HTTPCore

@Suite struct TrustedProxiesTests {
    static func proxies(_ texts: String...) -> TrustedProxies {
        guard case .success(let proxies) = TrustedProxies.parse(texts) else { fatalError("bad test network") }
        return proxies
    }

    @Test(arguments: [
        ("10.0.0.0/8", "10.255.1.2", true),
        ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.1.7", "192.168.1.7", true),
        ("192.168.1.7", "192.168.1.8", false),
        ("172.16.0.0/12", "172.31.255.255", true),
        ("172.16.0.0/12", "172.32.0.0", false),
        ("127.0.0.1", "::ffff:127.0.0.1", true),
        ("::1", "::1", true),
        ("::1", "127.0.0.1", false),
        ("fd00::/8", "fd12:3456::9", true),
        ("fd00::/8", "fe80::1", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("0.0.0.0/0", "203.0.113.9", true),
    ])
    func networkMembership(network: String, address: String, trusted: Bool) {
        #expect(Self.proxies(network).trusts(address) == trusted)
    }

    @Test(arguments: ["", "10.0.0.0/33", "10.0.0/8", "::1/129", "300.1.1.1", "10.0.0.1/", "1:2:3:4:5:6:7:8:9", "01.2.3.4",
                      "example.org", "1::2::3", "10.0.0.0/-1"])
    func malformedNetworksAreRefused(text: String) {
        #expect(TrustedProxies.parse([text]) == .failure(TrustedProxies.MalformedNetwork(text: text)))
    }

    @Test func ipv6TextIsCanonical() {
        #expect(IPAddressText.bytes("2001:db8:0:0:0:0:0:1").map(IPAddressText.text) == "2001:db8::1")
        #expect(IPAddressText.bytes("::").map(IPAddressText.text) == "::")
        #expect(IPAddressText.bytes("::ffff:192.0.2.1") == [192, 0, 2, 1])
        #expect(IPAddressText.bytes("fe80::1%eth0").map(IPAddressText.text) == "fe80::1")
    }

    @Test func headersFromAnUntrustedPeerAreIgnored() {
        let headers: HTTPHeaders = ["X-Forwarded-For": "1.2.3.4", "X-Forwarded-Proto": "https", "Host": "evil.example"]
        let client = Self.proxies("10.0.0.1").client(peer: "203.0.113.5", headers: headers)
        #expect(client == ForwardedClient(address: "203.0.113.5"))
        #expect(client.baseURL == nil)
    }

    @Test func noTrustedProxiesMeansThePeerIsTheClient() {
        let client = TrustedProxies().client(peer: "127.0.0.1", headers: ["X-Forwarded-For": "1.2.3.4"])
        #expect(client.address == "127.0.0.1")
        #expect(!client.viaTrustedProxy)
    }

    @Test func xForwardedForIsWalkedFromTheRight() {
        let proxies = Self.proxies("127.0.0.1", "10.0.0.0/8")
        // A client wrote "6.6.6.6" itself; our proxies appended the real client and an inner proxy.
        let headers: HTTPHeaders = ["X-Forwarded-For": "6.6.6.6, 198.51.100.7, 10.1.2.3", "X-Forwarded-Proto": "https",
                                    "Host": "raffle.example.org"]
        let client = proxies.client(peer: "127.0.0.1", headers: headers)
        #expect(client.address == "198.51.100.7")
        #expect(client.proto == "https")
        #expect(client.baseURL == "https://raffle.example.org")
    }

    @Test func forwardedIsReadWhenNoXForwardedForCame() {
        let headers: HTTPHeaders = [
            "Forwarded": "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https;host=raffle.example.org",
            "Host": "127.0.0.1:8080",
        ]
        let client = Self.proxies("127.0.0.1").client(peer: "127.0.0.1", headers: headers)
        #expect(client.address == "2001:db8:cafe::17")
        #expect(client.baseURL == "https://raffle.example.org")
    }

    @Test func aClientsOwnForwardedHeaderPassedThroughNginxIsNotBelieved() {
        // nginx appends to X-Forwarded-For and passes the client's Forwarded on untouched.
        let headers: HTTPHeaders = ["Forwarded": "for=1.2.3.4;proto=https", "X-Forwarded-For": "198.51.100.7",
                                    "X-Forwarded-Proto": "http", "Host": "raffle.example.org"]
        let client = Self.proxies("127.0.0.1").client(peer: "127.0.0.1", headers: headers)
        #expect(client.address == "198.51.100.7")
        #expect(client.baseURL == "http://raffle.example.org")
    }

    @Test func everyHopTrustedGivesTheLeftmost() {
        let client = Self.proxies("10.0.0.0/8").client(peer: "10.0.0.1", headers: ["X-Forwarded-For": "10.0.0.9, 10.0.0.8"])
        #expect(client.address == "10.0.0.9")
    }

    @Test func anObfuscatedHopStopsTheWalkAtTheLastKnownAddress() {
        let client = Self.proxies("127.0.0.1").client(peer: "127.0.0.1", headers: ["Forwarded": "for=unknown"])
        #expect(client.address == "127.0.0.1")
        #expect(client.viaTrustedProxy)
    }

    @Test func aBadProtoOrHostIsNotBelieved() {
        let headers: HTTPHeaders = ["X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "a b\"<", "Host": "ok.example:8443"]
        let client = Self.proxies("127.0.0.1").client(peer: "127.0.0.1", headers: headers)
        #expect(client.proto == nil)
        #expect(client.host == "ok.example:8443")
        #expect(client.baseURL == "http://ok.example:8443")
    }
}
