import RedisStore
import Posix
import Testing

/// The scripts beside the round log (docs/CLUSTER.md): the audit stream (fenced, chained),
/// branding (only the named fields, announced in the same step) and `tombola host-link`'s
/// host key reset (only for a draw that exists).
@Suite struct ClusterExtrasTests {
    static let genesis = String(repeating: "0", count: 64)

    func append(_ harness: Harness, draw: String, index: Int, prev: String, hash: String, lease: OwnerLease?) async -> Result<String, AuditAppendError> {
        await harness.client.onLoop { done in
            AuditStream(client: harness.client).append(draw: draw, index: index, prev: prev, hash: hash, json: "{\"index\":\(index)}",
                                                        lease: lease, done)
        }
    }

    func tail(_ harness: Harness, draw: String) async -> Result<AuditTail, ClusterError> {
        await harness.client.onLoop { done in AuditStream(client: harness.client).tail(draw: draw, done) }
    }

    @Test func theAuditStreamIsChainedAndFenced() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let draw = lease.draw
        #expect(try await tail(harness, draw: draw).get() == .empty)
        _ = try await append(harness, draw: draw, index: 0, prev: Self.genesis, hash: "h0", lease: lease).get()
        _ = try await append(harness, draw: draw, index: 1, prev: "h0", hash: "h1", lease: lease).get()
        #expect(try await tail(harness, draw: draw).get() == AuditTail(index: 1, hash: "h1"))

        // Not after the last entry (a stale view, or another writer came first): refused with the real tail.
        #expect(await append(harness, draw: draw, index: 1, prev: "h0", hash: "x", lease: lease).error == .chain(AuditTail(index: 1, hash: "h1")))
        #expect(await append(harness, draw: draw, index: 5, prev: "h1", hash: "x", lease: lease).error == .chain(AuditTail(index: 1, hash: "h1")))
        // A system write (tombola host-link) is chain-checked only, and carries token 0.
        _ = try await append(harness, draw: draw, index: 2, prev: "h1", hash: "h2", lease: nil).get()

        // A stale owner writes nothing once another took the lease.
        #expect(try await harness.store.releaseLease(lease).get())
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        guard case .fenced = await append(harness, draw: draw, index: 3, prev: "h2", hash: "h3", lease: lease).error else {
            throw TestFailure("a stale owner's audit entry was not refused")
        }
        _ = try await append(harness, draw: draw, index: 3, prev: "h2", hash: "h3", lease: newer).get()
        let tokens = await harness.client.command(["XRANGE", RedisDrawKeys(code: draw).audit, "-", "+"]).value?.array?.compactMap { entry -> String? in
            guard let fields = entry.array?.last?.array, let at = fields.firstIndex(of: .bulk(Array("token".utf8))) else { return nil }
            return fields[at + 1].string
        }
        #expect(tokens == ["\(lease.token)", "\(lease.token)", "0", "\(newer.token)"])
    }

    func apply(_ harness: Harness, _ change: BrandingChange, draw: String) async -> Result<BrandingRecord, ClusterError> {
        await harness.client.onLoop { done in ClusterBrandingStore(client: harness.client).apply(change, draw: draw, done) }
    }

    @Test func brandingChangesOnlyTheNamedFieldsAndAnnouncesTheResult() async throws {
        let server = try RedisServer()
        try server.start()
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown(); server.stop() }
        let draw = uniqueDraw()
        #expect(try await apply(harness, BrandingChange(title: "Gala", accent: "#112233"), draw: draw).get()
            == BrandingRecord(title: "Gala", accent: "#112233"))
        var logo = BrandingChange()
        logo.logo = ("image/png", [0x89, 0x50, 0, 1, 2], "0123456789abcdef")
        #expect(try await apply(harness, logo, draw: draw).get()
            == BrandingRecord(title: "Gala", accent: "#112233", logoType: "image/png", logoVersion: "0123456789abcdef"))
        // A title alone keeps the accent and the logo.
        #expect(try await apply(harness, BrandingChange(title: "Line\ntwo"), draw: draw).get().logoVersion == "0123456789abcdef")
        let read = await harness.client.onLoop { done in ClusterBrandingStore(client: harness.client).logo(draw: draw, done) }
        #expect(try read.get()?.bytes == [0x89, 0x50, 0, 1, 2])
        var remove = BrandingChange()
        remove.removeLogo = true
        #expect(try await apply(harness, remove, draw: draw).get() == BrandingRecord(title: "Line\ntwo", accent: "#112233"))
        #expect(await harness.client.command(["HEXISTS", RedisDrawKeys(code: draw).branding, "logo"]).value == .integer(0))

        // A prize tier's music: stored beside the branding, its version in the media hash; removed again.
        var music = BrandingChange()
        music.media = ("music-2", ("audio/ogg", Array("OggS..".utf8), "m1"))
        #expect(try await apply(harness, music, draw: draw).get().media == ["music-2": "m1"])
        let song = await harness.client.onLoop { done in ClusterBrandingStore(client: harness.client).media(draw: draw, slot: "music-2", done) }
        #expect(try song.get()?.bytes == Array("OggS..".utf8) && song.get()?.type == "audio/ogg")
        let reread = await harness.client.onLoop { done in ClusterBrandingStore(client: harness.client).read(draw: draw, done) }
        #expect(try reread.get() == BrandingRecord(title: "Line\ntwo", accent: "#112233", media: ["music-2": "m1"]))
        music.media = ("music-2", nil)
        #expect(try await apply(harness, music, draw: draw).get().media.isEmpty)
        #expect(await harness.client.command(["HEXISTS", RedisDrawKeys(code: draw).branding, "media:music-2"]).value == .integer(0))

        // What the script publishes reads back as the draw and its branding (a title may hold anything).
        let announced = Array("\(draw)\nv1\nimage/webp\n#aabbcc\nmusic-1=cd,picture-0=ab\nA\nB".utf8)
        #expect(BrandingRecord.parseAnnouncement(announced)?.code == draw)
        #expect(BrandingRecord.parseAnnouncement(announced)?.record
            == BrandingRecord(title: "A\nB", accent: "#aabbcc", logoType: "image/webp", logoVersion: "v1",
                              media: ["picture-0": "ab", "music-1": "cd"]))
        #expect(BrandingRecord.parseAnnouncement(Array("short".utf8)) == nil)
    }

    @Test func aHostKeyResetNeedsAnExistingDraw() async throws {
        let server = try RedisServer()
        try server.start()
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown(); server.stop() }
        let draw = uniqueDraw()
        let meta = RedisDrawKeys(code: draw).meta
        func reset(_ hash: String) async -> Result<Bool, ClusterError> {
            await harness.client.onLoop { done in HostKeyReset.replace(code: draw, hash: hash, on: harness.client, done) }
        }
        #expect(try await reset("new").get() == false)
        #expect(await harness.client.command(["EXISTS", meta]).value == .integer(0))
        _ = await harness.client.command(["HSET", meta, "hostKeyHash", "old"])
        #expect(try await reset("new").get())
        #expect(await harness.client.command(["HGET", meta, "hostKeyHash"]).value == .bulk(Array("new".utf8)))
    }
}
