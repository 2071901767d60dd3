import JSON
import Testing
@testable import Webhooks

/// The pure parts of outgoing webhooks: the signature, the chat formats, the URL and address
/// rules against server-side request forgery.
@Suite struct WebhookCoreTests {
    static let event = WebhookEvent(id: "ev-1", kind: .roundRevealed, draw: "ABC123", at: 1_796_385_600_500,
                                    data: .object(["round": .int(3), "prize": .string("一等奖"), "winners": .array([.string("王小明")])]),
                                    texts: ["en": "Round 3 (一等奖): 王小明", "zh": "第 3 轮（一等奖）：王小明"])

    @Test func theSignatureCoversTheTimestampAndTheBody() {
        let body = WebhookFormat.generic.body(Self.event)
        let header = WebhookSignature.value(secret: "s3cret", timestamp: 1_796_385_600, body: body)
        #expect(header.hasPrefix("t=1796385600,v1="))
        // HMAC-SHA256("s3cret", "1796385600." + body), as any receiver computes it.
        #expect(WebhookSignature.verify(header, secret: "s3cret", body: body, now: 1_796_385_600))
        #expect(WebhookSignature.verify(header, secret: "s3cret", body: body, now: 1_796_385_600 + 300))
        // Replayed later than the tolerance, another secret, another body, another timestamp: refused.
        #expect(!WebhookSignature.verify(header, secret: "s3cret", body: body, now: 1_796_385_600 + 301))
        #expect(!WebhookSignature.verify(header, secret: "other", body: body, now: 1_796_385_600))
        #expect(!WebhookSignature.verify(header, secret: "s3cret", body: body + [0x20], now: 1_796_385_600))
        let moved = header.replacing("t=1796385600", with: "t=1796385700")
        #expect(!WebhookSignature.verify(moved, secret: "s3cret", body: body, now: 1_796_385_700))
        #expect(!WebhookSignature.verify("garbage", secret: "s3cret", body: body, now: 1_796_385_600))
    }

    @Test func theFormatsAreWhatEachChatTakes() throws {
        let generic = try JSONValue.parse(String(decoding: WebhookFormat.generic.body(Self.event), as: UTF8.self))
        #expect(generic["type"]?.stringValue == "round.revealed" && generic["id"]?.stringValue == "ev-1")
        #expect(generic["draw"]?.stringValue == "ABC123" && generic["data"]?["round"]?.intValue == 3)
        for format in [WebhookFormat.slack, .teams] {
            #expect(try JSONValue.parse(String(decoding: format.body(Self.event), as: UTF8.self)) == .object(["text": .string(Self.event.text("en"))]))
        }
        #expect(try JSONValue.parse(String(decoding: WebhookFormat.discord.body(Self.event), as: UTF8.self))
                == .object(["content": .string(Self.event.text("en"))]))
        #expect(try JSONValue.parse(String(decoding: WebhookFormat.wecom.body(Self.event), as: UTF8.self))
                == .object(["msgtype": .string("text"), "text": .object(["content": .string(Self.event.text("en"))])]))
        #expect(WebhookFormat.generic.signed && !WebhookFormat.slack.signed)
        #expect(try JSONValue.parse(String(decoding: WebhookFormat.wecom.body(Self.event, language: "zh"), as: UTF8.self))["text"]?["content"]
                == .string("第 3 轮（一等奖）：王小明"))
        #expect(Self.event.text("ko") == Self.event.text("en"))
        // WeCom's 2,048-byte limit cuts at a whole character.
        #expect(WebhookFormat.utf8Prefix(String(repeating: "奖", count: 1000), 2048).count == 682)
    }

    @Test func urlsAreSplitAndOddOnesRefused() throws {
        #expect(try WebhookTarget.parse("https://hooks.slack.com/services/T0/B0/x?y=1").get()
                == WebhookTarget(url: "https://hooks.slack.com/services/T0/B0/x?y=1", https: true, host: "hooks.slack.com", port: 443))
        #expect(try WebhookTarget.parse("http://[::1]:8080/hook").get().host == "::1")
        #expect(try WebhookTarget.parse("http://Example.COM.:81").get() == WebhookTarget(url: "http://Example.COM.:81", https: false, host: "example.com", port: 81))
        for bad in ["ftp://x", "https://user:pw@example.com/", "https://", "https://x:0/", "https://x:99999/", "https://x/#frag",
                    "https://exa mple.com/", "javascript:alert(1)", "https://[::1/"] {
            guard case .failure(.badURL) = WebhookTarget.parse(bad) else {
                Issue.record("accepted \(bad)")
                continue
            }
        }
    }

    @Test func onlyPublicAddressesPass() {
        let refused: [[UInt8]] = [[127, 0, 0, 1], [10, 1, 2, 3], [172, 16, 0, 1], [172, 31, 255, 255], [192, 168, 1, 1],
                                  [169, 254, 169, 254], [100, 64, 0, 1], [0, 0, 0, 0], [224, 0, 0, 1], [255, 255, 255, 255],
                                  [198, 18, 0, 1], [192, 0, 2, 1]]
        for address in refused { #expect(!AddressPolicy.isPublic(address), "\(address)") }
        for address: [UInt8] in [[1, 1, 1, 1], [8, 8, 8, 8], [172, 32, 0, 1], [100, 128, 0, 1], [193, 0, 2, 1]] {
            #expect(AddressPolicy.isPublic(address), "\(address)")
        }
        func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        #expect(!AddressPolicy.isPublic(v6([0, 0, 0, 0, 0, 0, 0, 1]))) // ::1
        #expect(!AddressPolicy.isPublic(v6([0, 0, 0, 0, 0, 0, 0, 0]))) // ::
        #expect(!AddressPolicy.isPublic(v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001]))) // ::ffff:127.0.0.1
        #expect(!AddressPolicy.isPublic(v6([0, 0, 0, 0, 0, 0xFFFF, 0xA9FE, 0xA9FE]))) // ::ffff:169.254.169.254
        #expect(!AddressPolicy.isPublic(v6([0x64, 0xFF9B, 0, 0, 0, 0, 0x0A00, 0x0001]))) // 64:ff9b::10.0.0.1
        #expect(!AddressPolicy.isPublic(v6([0xFD00, 0, 0, 0, 0, 0, 0, 1]))) // unique local
        #expect(!AddressPolicy.isPublic(v6([0xFE80, 0, 0, 0, 0, 0, 0, 1]))) // link-local
        #expect(!AddressPolicy.isPublic(v6([0xFF02, 0, 0, 0, 0, 0, 0, 1]))) // multicast
        #expect(!AddressPolicy.isPublic(v6([0x2002, 0x0A00, 0x0001, 0, 0, 0, 0, 1]))) // 6to4 of 10.0.0.1
        #expect(AddressPolicy.isPublic(v6([0x2606, 0x4700, 0x4700, 0, 0, 0, 0, 0x1111]))) // 2606:4700:4700::1111
        #expect(AddressPolicy.isPublic(v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808]))) // ::ffff:8.8.8.8
    }

    @Test func aLoopbackTargetIsRefusedUnlessAllowed() throws {
        let target = try WebhookTarget.parse("http://127.0.0.1:9/hook").get()
        #expect(target.resolve(allowPrivate: false) == .failure(.privateAddress("127.0.0.1")))
        #expect(target.resolve(allowPrivate: true) == .success("127.0.0.1"))
        // A name that resolves to loopback is refused as its address is.
        #expect(try WebhookTarget.parse("http://localhost:9/").get().resolve(allowPrivate: false).isPrivateRefusal)
    }
}

extension Result where Success == String, Failure == WebhookRefusal {
    var isPrivateRefusal: Bool { if case .failure(.privateAddress) = self { true } else { false } }
}
