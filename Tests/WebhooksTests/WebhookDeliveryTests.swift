import HTTPCore
import JSON
import Locking
import Server
import TestSupport
import Testing
@testable import Webhooks

/// Deliveries to a real HTTP receiver on loopback (allowed here as `--webhook-allow-private`
/// would): signed, in order, retried with back-off on a failing receiver, never retried when
/// refused.
@Suite struct WebhookDeliveryTests {
    /// Answers each POST to /hook with the next status of `statuses` (then 200) and keeps it.
    final class Receiver: Sendable {
        struct Seen: Sendable {
            var body: [UInt8]
            var headers: [String: String]
        }
        let seen = Lock<[Seen]>([])
        let statuses: Lock<[Int]>
        let server: TestServer

        init(statuses: [Int] = []) throws {
            let seen = self.seen
            let queue = Lock(statuses)
            self.statuses = queue
            var router = Router()
            router.handle("/hook", methods: ["POST"]) { request, responder in
                var headers: [String: String] = [:]
                for name in ["Content-Type", "Tombola-Signature", "Tombola-Event", "Tombola-Delivery", "User-Agent"] {
                    headers[name] = request.head.headers[name]
                }
                seen.withLock { $0.append(Seen(body: request.body, headers: headers)) }
                let status = queue.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
                responder.respond(HTTPResponse(status: HTTPStatus(code: status)))
            }
            server = try TestServer(router: router)
        }

        var url: String { "http://127.0.0.1:\(server.port)/hook" }

        func wait(for count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while seen.withLock({ $0.count }) < count {
                guard ContinuousClock.now < deadline else { throw Timeout() }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    struct Timeout: Error {}

    static func event(_ n: Int, kind: WebhookEvent.Kind = .roundRevealed) -> WebhookEvent {
        WebhookEvent(id: "ev-\(n)", kind: kind, draw: "ABC123", at: 1_796_385_600_000 + Int64(n),
                     data: .object(["round": .int(Int64(n))]), texts: ["en": "Round \(n)"])
    }

    static func waitIdle(_ dispatcher: WebhookDispatcher, _ id: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while dispatcher.status(of: id).pending > 0 {
            guard ContinuousClock.now < deadline else { throw Timeout() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func eventsArriveSignedAndInOrderDespiteFailures() async throws {
        // The receiver fails the first event twice (500, then 503) and rate-limits the third once.
        let receiver = try Receiver(statuses: [500, 503, 200, 200, 429])
        defer { receiver.server.stop() }
        let dispatcher = WebhookDispatcher(allowPrivate: true, retryDelays: [.milliseconds(20), .milliseconds(40), .milliseconds(80)])
        let hook = WebhookHook(id: "h1", target: try WebhookTarget.parse(receiver.url).get(), format: .generic, secret: "s3cret")
        for n in 1...5 { dispatcher.deliver(Self.event(n), to: hook) }
        try await receiver.wait(for: 8)
        try await Self.waitIdle(dispatcher, "h1")
        let seen = receiver.seen.withLock { $0 }
        let ids = seen.map { $0.headers["Tombola-Delivery"] ?? "" }
        // Each event's retries come before the next event: the receiver sees them in order.
        #expect(ids == ["ev-1", "ev-1", "ev-1", "ev-2", "ev-3", "ev-3", "ev-4", "ev-5"])
        let now = WebhookDispatcher.clockMillis() / 1000
        for delivery in seen {
            #expect(delivery.headers["Content-Type"] == "application/json")
            #expect(delivery.headers["Tombola-Event"] == "round.revealed")
            #expect(WebhookSignature.verify(delivery.headers["Tombola-Signature"] ?? "", secret: "s3cret", body: delivery.body, now: now))
        }
        let status = dispatcher.status(of: "h1")
        #expect(status.delivered == 5 && status.failed == 0 && status.pending == 0 && status.lastStatus == 200)
    }

    @Test func aReceiverThatKeepsFailingIsGivenUpOnAfterTheRetries() async throws {
        let receiver = try Receiver(statuses: [500, 500, 500, 200])
        defer { receiver.server.stop() }
        let dispatcher = WebhookDispatcher(allowPrivate: true, retryDelays: [.milliseconds(10), .milliseconds(10)])
        let hook = WebhookHook(id: "h2", target: try WebhookTarget.parse(receiver.url).get(), format: .slack, secret: "")
        dispatcher.deliver(Self.event(1), to: hook)
        dispatcher.deliver(Self.event(2), to: hook)
        try await receiver.wait(for: 4)
        try await Self.waitIdle(dispatcher, "h2")
        let seen = receiver.seen.withLock { $0 }
        #expect(seen.map { $0.headers["Tombola-Delivery"] ?? "" } == ["ev-1", "ev-1", "ev-1", "ev-2"])
        // A chat format: Slack's body, no signature.
        #expect(seen[3].headers["Tombola-Signature"] == nil)
        #expect(try JSONValue.parse(String(decoding: seen[3].body, as: UTF8.self)) == .object(["text": .string("Round 2")]))
        let status = dispatcher.status(of: "h2")
        #expect(status.delivered == 1 && status.failed == 1 && status.lastStatus == 200)
    }

    @Test func aPrivateTargetIsRefusedOnceAndNeverContacted() async throws {
        let receiver = try Receiver()
        defer { receiver.server.stop() }
        let dispatcher = WebhookDispatcher(allowPrivate: false, retryDelays: [.milliseconds(10)])
        // Plain http to loopback: refused twice over (http, then the address), never sent.
        for (id, url) in [("h3", receiver.url), ("h4", receiver.url.replacing("http://", with: "https://"))] {
            let hook = WebhookHook(id: id, target: try WebhookTarget.parse(url).get(), format: .generic, secret: "s")
            dispatcher.deliver(Self.event(1), to: hook)
            try await Self.waitIdle(dispatcher, id)
            let status = dispatcher.status(of: id)
            #expect(status.failed == 1 && status.delivered == 0 && status.lastStatus == 0)
            #expect(status.lastError?.hasPrefix("refused:") == true, "\(status)")
        }
        #expect(receiver.seen.withLock { $0.isEmpty })
    }

    @Test func aHookGetsOnlyTheKindsItAskedFor() async throws {
        let receiver = try Receiver()
        defer { receiver.server.stop() }
        let dispatcher = WebhookDispatcher(allowPrivate: true)
        let hook = WebhookHook(id: "h5", target: try WebhookTarget.parse(receiver.url).get(), format: .generic, secret: "s",
                               events: [.void, .checkinClosed])
        dispatcher.deliver(Self.event(1), to: hook)
        dispatcher.deliver(Self.event(2, kind: .void), to: hook)
        dispatcher.deliver(Self.event(3, kind: .checkinOpened), to: hook)
        dispatcher.deliver(Self.event(4, kind: .checkinClosed), to: hook)
        try await receiver.wait(for: 2)
        try await Self.waitIdle(dispatcher, "h5")
        #expect(receiver.seen.withLock { $0.map { $0.headers["Tombola-Event"] ?? "" } } == ["void", "checkin.closed"])
    }
}
