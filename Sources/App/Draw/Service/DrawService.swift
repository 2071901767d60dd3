import DrawRoomCore
import Server
import JSON
import DrawEngine
import Posix
import Storage
import Locking
import Crypto

/// Every draw of this server: the rooms (on one draw loop), the store, the shared auth rate
/// limiter, the admin key and the links pages and the API hand out.
///
/// Made at start-up with `open`, before the HTTP server starts; routes are added with
/// `AppRoutes`/`DrawEndpoints`. Secrets never go to a log: the only place a key is printed
/// is the start-up banner (`DefaultDraw.hostKey`, the admin key).
public final class DrawService: Sendable {
    /// The default draw as start-up found or made it.
    public struct DefaultDraw: Sendable {
        public let code: String
        /// The host key when known this run (just generated, or given with `--host-key`);
        /// nil when it was generated at an earlier start (only its hash is stored).
        public let hostKey: String?
        /// Whether this start created the draw.
        public let created: Bool
        /// Whether `--host-key` replaced a different stored key.
        public let keyReset: Bool
    }

    public let defaultDraw: DefaultDraw
    /// The admin key's digest (`AdminKey`): given, kept from an earlier start, or made now;
    /// replaced while running when `tombola admin-link` stores a new one.
    let adminKeyHash: HostKeyHash
    /// The admin key when this start generated it (printed once by the banner), else nil.
    public let generatedAdminKey: String?
    public let storage: StorageQueue
    let limiter: AuthRateLimiter
    let settings: DrawRoomSettings
    /// The key that signs every record this server stores (issue #47), for the banner.
    public var signer: RecordSigner? { settings.signer }
    let audit = DrawAuditLog()
    /// Every draw's named operators' keys (issue #41; single box).
    let operators = OperatorTable()
    /// Rounds' entry trees for the phones' entry proofs (built once per round).
    let entryProofs = EntryProofCache()
    let metrics: DrawMetrics
    /// Each draw's title, accent colour and logo for the screen.
    let branding: BrandingStore
    let group: EventLoopGroup
    /// The stored draws (code → host key hash) and the rooms made for them so far; which are
    /// archived, and the codes of deleted draws (never reused).
    struct KnownDraws {
        var stored: [String: String]
        var rooms: [String: DrawRoom]
        var archived: Set<String> = []
        var deleted: Set<String> = []
        /// When each room was last looked up (or seen with a page), for `--unload-idle-after`.
        var lastUsed: [String: ContinuousClock.Instant] = [:]
        /// Rooms whose state the idle sweep dropped, with what their next read takes up
        /// (DrawService+Unloading.swift).
        var dormant: [String: DormantDraw] = [:]

        /// Rooms whose draw is in memory (made, not unloaded).
        var loadedCount: Int { rooms.keys.reduce(0) { $0 + (dormant[$1] == nil ? 1 : 0) } }
    }
    let known: Lock<KnownDraws>
    /// Rooms made since the storage thread last read draws back: read together, one fsync for all.
    private let pendingLoads = Lock<(rooms: [(room: DrawRoom, dormant: DormantDraw?)], scheduled: Bool)>(([], false))
    private let hostKeyWatch: HostKeyWatch
    /// Cluster mode (`--redis`): the draws live in Redis and `rooms` stays empty.
    let cluster: ClusterRuntime?
    private let base = Lock<String>("http://localhost:8080")
    /// `/readyz`, and whether this instance is draining.
    public let readiness = Readiness()

    /// Opens the store in `configuration.dataDirectory`, reads which draws are stored and makes
    /// sure the default draw exists. Blocks; call before the server starts. Each stored draw is
    /// read back on its first use (showing its last revealed round, or idle after a Clear; with a
    /// fresh `restart` commitment), not here: start-up does not grow with the stored history.
    public static func open(configuration: AppConfiguration, metrics: MetricsRegistry = MetricsRegistry(),
                            slowDown: Duration = .milliseconds(1500),
                            authBurst: Int = 5, authRefill: Duration = .seconds(2)) throws -> DrawService {
        let storage = try StorageQueue(directory: configuration.dataDirectory)
        do {
            // Before any draw is read or written: every record stored from now on is signed (issue #47).
            let signer = try ServerSigning.load(dataDirectory: configuration.dataDirectory)
            ServerTimeStamping.install(tsa: configuration.tsaURL)
            ServerWebhooks.install(try WebhookRegistry.local(storage: storage, allowPrivate: configuration.webhookAllowPrivate))
            var settings = DrawRoomSettings(tickHz: configuration.tickHz, slowDown: slowDown,
                                            maxPoolBytes: configuration.maxPoolBytes, beacon: configuration.beacon,
                                            software: BinaryIdentity.software, signer: signer,
                                            privateDraws: configuration.privateDraws)
            // Prize vouchers (issue 45): a key of their own derived from the signing key (no file to
            // back up), and their QR drawn here, sent to the winner's phone with the code.
            settings.voucherKey = HMACSHA256.authenticationCode(key: signer.key.seed, message: Array("tombola-voucher-key-v1".utf8))
            settings.qrSVG = { QRCodeSVG.render($0) }
            let service = try DrawService(configuration: configuration, storage: storage,
                                   settings: settings,
                                   limiter: AuthRateLimiter(burst: authBurst, refill: authRefill),
                                   registry: metrics)
            // The named operators, before any page or call can present one's key.
            service.operators.load(try storage.sync { database in try database.loadOperators() })
            return service
        } catch {
            storage.close()
            throw error
        }
    }

    private init(configuration: AppConfiguration, storage: StorageQueue, settings: DrawRoomSettings,
                 limiter: AuthRateLimiter, registry: MetricsRegistry) throws {
        self.storage = storage
        let metrics = DrawMetrics(registry: registry)
        self.metrics = metrics
        self.settings = settings
        self.limiter = limiter
        cluster = nil
        group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]

        let wanted = configuration.defaultDrawCode
        if let wanted, !DrawKeys.isValidCode(wanted) {
            group.shutdown()
            throw DrawServiceError.badCode(wanted)
        }
        if let key = configuration.hostKey, !DrawKeys.isPlausibleKey(key) {
            group.shutdown()
            throw DrawServiceError.badKey
        }
        struct Found: Sendable {
            var index: [(code: String, hostKeyHash: String)]
            var defaultDraw: DefaultDraw
            /// The default draw when this start created it (its room is made at once).
            var created: (row: DrawRow, draw: Draw)?
            var admin: AdminKey.Resolved
            var marks: (archived: Set<String>, deleted: Set<String>) = ([], [])
        }
        let found: Found
        let audit = self.audit
        do {
            // Only the stored draws' codes and host key hashes: each draw's settings, records and
            // check-in book are read on its first use (`localRoom`), so start-up does not grow with history.
            found = try storage.sync { database -> Found in
                let admin = try AdminKey.resolve(given: configuration.adminKey, in: database)
                let marks = try database.loadDrawMarks()
                if let wanted, marks.deleted.contains(wanted) { throw DrawServiceError.deletedCode(wanted) }
                var index = try database.loadDrawIndex()
                let code = wanted ?? index.first?.code
                if let code, let position = index.firstIndex(where: { $0.code == code }) {
                    var keyReset = false
                    if let key = configuration.hostKey, !DrawKeys.matches(key, storedHash: index[position].hostKeyHash) {
                        try database.transaction {
                            try database.updateHostKeyHash(code: code, hash: DrawKeys.hash(key))
                            try DrawPersistence.append([], code: code,
                                                       audit: (audit, AuditEntry(actor: "system", action: "host_key_reset")),
                                                       in: database)
                        }
                        index[position].hostKeyHash = DrawKeys.hash(key)
                        keyReset = true
                    }
                    return Found(index: index, defaultDraw: DefaultDraw(code: code, hostKey: configuration.hostKey,
                                                                        created: false, keyReset: keyReset), admin: admin, marks: marks)
                }
                let key = configuration.hostKey ?? DrawKeys.newSecret()
                var standard = DrawConfig.standard
                standard.isPrivate = configuration.privateDraws
                let created = try Self.insertDraw(code: code ?? DrawKeys.newCode(), key: key, config: standard,
                                                  audit: (audit, AuditEntry(actor: "system", action: "create")),
                                                  signer: settings.signer, in: database)
                index.append((created.row.code, created.row.hostKeyHash))
                return Found(index: index, defaultDraw: DefaultDraw(code: created.row.code, hostKey: key, created: true,
                                                                    keyReset: false), created: created, admin: admin, marks: marks)
            }
        } catch {
            group.shutdown()
            throw error
        }
        defaultDraw = found.defaultDraw
        adminKeyHash = HostKeyHash(found.admin.hash)
        generatedAdminKey = found.admin.generated
        do {
            branding = try BrandingStore(storage: storage)
        } catch {
            group.shutdown()
            throw error
        }
        var stored = [String: String]()
        for entry in found.index { stored[entry.code] = entry.hostKeyHash }
        var rooms = [String: DrawRoom]()
        if let created = found.created {
            rooms[created.row.code] = DrawRoom(code: created.row.code, draw: created.draw, hostKeyHash: created.row.hostKeyHash,
                                               loop: loop, store: SQLiteDrawStore(storage: storage, audit: audit, signer: settings.signer),
                                               limiter: limiter, settings: settings, metrics: metrics,
                                               operators: operators.keys(for: created.row.code))
        }
        known = Lock(KnownDraws(stored: stored, rooms: rooms, archived: found.marks.archived, deleted: found.marks.deleted))
        hostKeyWatch = HostKeyWatch(loop: loop, storage: storage) { [known = self.known, adminKeyHash = self.adminKeyHash] hashes, admin in
            if let admin { _ = adminKeyHash.replace(with: admin) }
            let rooms = known.withLock { known in
                for (code, hash) in hashes where known.stored[code] != nil { known.stored[code] = hash }
                return known.rooms
            }
            for (code, hash) in hashes { rooms[code]?.hostKeyChanged(to: hash) }
        }
        hostKeyWatch.start()
        for room in rooms.values { room.connect(pastDrawLinks(for: room.code)) }
        registry.gauge("tombola_draw_rooms", help: "Draws this server holds (stored; each read into memory on its first use).") { [weak self] in
            Double(self?.known.withLock { $0.stored.count } ?? 0)
        }
        registry.gauge("tombola_draw_rooms_loaded", help: "Draws in memory: read on first use, unloaded after --unload-idle-after without use.") { [weak self] in
            Double(self?.known.withLock { $0.loadedCount } ?? 0)
        }
        registry.gauge("tombola_draw_viewers", help: "Pages connected to any draw room.") { [weak self] in
            Double(self?.known.withLock { $0.rooms.values.reduce(0) { $0 + $1.group.count } } ?? 0)
        }
        startUnloading(idleSeconds: configuration.unloadIdleAfter)
        startRetention()
    }

    /// Cluster mode: the draws are the cluster's nodes; SQLite is opened but holds no draw.
    init(cluster: ClusterRuntime, defaultDraw: DefaultDraw, admin: AdminKey.Resolved, storage: StorageQueue,
         branding: BrandingStore, settings: DrawRoomSettings, limiter: AuthRateLimiter, metrics: DrawMetrics, registry: MetricsRegistry) {
        self.cluster = cluster
        self.storage = storage
        self.branding = branding
        self.metrics = metrics
        self.settings = settings
        self.limiter = limiter
        adminKeyHash = HostKeyHash(admin.hash)
        generatedAdminKey = admin.generated
        self.defaultDraw = defaultDraw
        group = cluster.group
        known = Lock(KnownDraws(stored: [:], rooms: [:]))
        hostKeyWatch = HostKeyWatch(loop: cluster.loop, storage: storage) { [adminKeyHash = self.adminKeyHash] _, admin in
            if let admin { _ = adminKeyHash.replace(with: admin) }
        }
        hostKeyWatch.start()
        registry.gauge("tombola_draw_viewers", help: "Pages connected to any draw room.") {
            Double(cluster.nodes.values.reduce(0) { $0 + $1.group.count })
        }
    }

    /// A new draw row with its `open` commitment, in one transaction (storage thread).
    private static func insertDraw(code: String, key: String, config: DrawConfig, audit: (DrawAuditLog, AuditEntry),
                                   signer: RecordSigner?, in database: Database) throws -> (row: DrawRow, draw: Draw) {
        var draw = try Draw(config: config)
        draw.software = BinaryIdentity.software
        let record = try draw.prepareFreshCommitment()
        let row = DrawRow(code: code, hostKeyHash: DrawKeys.hash(key), createdAt: WallClock.unixMilliseconds() / 1000,
                          configJSON: DrawPersistence.encode(draw.config), clearedThrough: -1)
        try database.transaction {
            try database.insertDraw(row)
            try DrawPersistence.append([record], code: code, audit: audit, seed: draw.committedSeed, signer: signer, in: database)
        }
        return (row, draw)
    }

    /// The room for `code` (exact, or upper-cased as typed from a projector), or nil.
    func room(_ code: String) -> (any DrawChannel)? {
        if let cluster { return cluster.node(code) }
        return localRoom(code)
    }

    /// The room of stored draw `code` (exact, or upper-cased), made on its first use: the room
    /// exists at once (one per draw, however many first requests race) and its draw is read on
    /// the storage thread; what reaches it meanwhile waits (DrawRoom+Loading.swift).
    /// Every lookup counts as use (`--unload-idle-after`); a room the idle sweep unloaded is read
    /// back here (DrawService+Unloading.swift).
    func localRoom(_ code: String) -> DrawRoom? {
        let loop = group.loops[0]
        let now = ContinuousClock.now
        let made: (room: DrawRoom, new: Bool, archived: Bool, dormant: DormantDraw?)? = known.withLock { known in
            func find(_ candidate: String) -> (room: DrawRoom, new: Bool, archived: Bool, dormant: DormantDraw?)? {
                if let room = known.rooms[candidate] {
                    known.lastUsed[candidate] = now
                    guard let dormant = known.dormant.removeValue(forKey: candidate) else { return (room, false, false, nil) }
                    return (room, false, known.archived.contains(candidate), dormant)
                }
                guard let hash = known.stored[candidate] else { return nil }
                let room = DrawRoom(code: candidate, hostKeyHash: hash, loop: loop,
                                    store: SQLiteDrawStore(storage: storage, audit: audit, signer: settings.signer), limiter: limiter,
                                    settings: settings, metrics: metrics, operators: operators.keys(for: candidate))
                known.rooms[candidate] = room
                known.lastUsed[candidate] = now
                return (room, true, known.archived.contains(candidate), known.dormant.removeValue(forKey: candidate))
            }
            return find(code) ?? find(code.uppercased())
        }
        guard let made else { return nil }
        if made.new {
            // Queued before anything a caller sends the new room: an archived draw is read-only from the start.
            if made.archived { made.room.setArchived(true) { _ in } }
            made.room.connect(pastDrawLinks(for: made.room.code))
            load(made.room, resuming: made.dormant)
        } else if let dormant = made.dormant {
            reloadDormant(made.room, dormant, archived: made.archived)
        }
        return made.room
    }

    /// Every stored draw's code (loaded or not).
    var drawCodes: [String] { known.withLock { Array($0.stored.keys) } }

    /// The host key hash the service holds for stored draw `code` (a room made later starts with it).
    func storedHostKeyHash(_ code: String) -> String? { known.withLock { $0.stored[code] } }

    /// How many stored draws are in memory (a room made and not unloaded).
    var loadedRoomCount: Int { known.withLock { $0.loadedCount } }

    /// Reads `room`'s draw back on the storage thread, with every room made meanwhile: their
    /// `restart` commitments go in one synced transaction (one fsync for a burst of first uses).
    /// A room the idle sweep unloaded takes its pending commitment up again (`dormant`): no record,
    /// no write.
    func load(_ room: DrawRoom, resuming dormant: DormantDraw? = nil) {
        let first = pendingLoads.withLock { pending -> Bool in
            pending.rooms.append((room, dormant))
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        guard first else { return }
        let pendingLoads = self.pendingLoads
        let audit = self.audit
        let signer = settings.signer
        storage.async { [weak self] database in
            let rooms = pendingLoads.withLock { pending -> [(room: DrawRoom, dormant: DormantDraw?)] in
                defer { pending = ([], false) }
                return pending.rooms
            }
            var read = [(room: DrawRoom, draw: Draw, commitment: DrawRecord?, checkin: CheckinBook, interrupted: Int?, resumed: Int?)]()
            var failed = [(room: DrawRoom, error: any Error, dormant: DormantDraw?)]()
            for (room, dormant) in rooms {
                do {
                    guard let row = try database.loadDraw(code: room.code) else {
                        throw StorageError(.notFound, detail: "draw \(room.code) is not stored")
                    }
                    var draw = try DrawPersistence.restore(row, in: database)
                    draw.software = BinaryIdentity.software
                    if let dormant, dormant.resume(&draw) {
                        read.append((room, draw, nil, try DrawPersistence.loadCheckin(code: room.code, in: database), dormant.interrupted, nil))
                        continue
                    }
                    let interrupted = try DrawPersistence.interruptedRound(code: room.code, next: draw.nextRound, in: database)
                    // No re-roll by crash (issue #40): a round the previous run left rolling rolls on, on the
                    // lock its Start stored, with the sealed seed and the frozen inputs: the same winners.
                    if let interrupted, draw.sealing == nil,
                       let round = try DrawPersistence.resumeRolling(&draw, code: room.code, round: interrupted, in: database) {
                        try audit.append(AuditEntry(actor: "system", action: "resume", detail: .object(["round": .int(Int64(round))])),
                                         code: room.code, at: DrawPersistence.now, in: database)
                        read.append((room, draw, nil, try DrawPersistence.loadCheckin(code: room.code, in: database), nil, round))
                        continue
                    }
                    // A beacon-sealed round waiting for its drand round resumes with its own commitment.
                    let commitment = draw.sealing == nil ? try draw.prepareFreshCommitment() : nil
                    read.append((room, draw, commitment, try DrawPersistence.loadCheckin(code: room.code, in: database),
                                 interrupted, nil))
                } catch {
                    failed.append((room, error, dormant))
                }
            }
            do {
                // Only first reads store a commitment: a read back after unloading writes nothing.
                if read.contains(where: { $0.commitment != nil }) { try database.transaction {
                    for entry in read {
                        guard let commitment = entry.commitment else { continue }
                        let detail: JSONValue = entry.interrupted.map { .object(["interrupted": .int(Int64($0))]) } ?? .object([:])
                        try DrawPersistence.append([commitment], code: entry.room.code,
                                                   audit: (audit, AuditEntry(actor: "system", action: "restart", detail: detail)),
                                                   seed: entry.draw.committedSeed, signer: signer, in: database)
                    }
                } }
            } catch {
                // Rolled back: the audit tails this batch advanced in memory are not on disk.
                for entry in read { audit.forget(entry.room.code) }
                failed += read.map { entry in (entry.room, error, rooms.first { $0.room === entry.room }?.dormant) }
                read = []
            }
            for entry in failed {
                // Forgotten, so a later request reads the draw again (an unloaded one still takes its commitment up).
                self?.known.withLock { known in
                    if known.rooms[entry.room.code] === entry.room { known.rooms[entry.room.code] = nil }
                    if let dormant = entry.dormant, known.dormant[entry.room.code] == nil { known.dormant[entry.room.code] = dormant }
                }
                entry.room.finishLoading(.failure(entry.error))
            }
            for entry in read {
                if let round = entry.interrupted { DrawLog.interrupted(round: round, code: entry.room.code) }
                if let round = entry.resumed { DrawLog.resumed(round: round, code: entry.room.code) }
                entry.room.finishLoading(.success((entry.draw, entry.checkin, entry.interrupted, entry.resumed)))
            }
        }
    }

    /// What draw `code`'s `excludeWinnersOf` reaches. Weak: rooms hold these, the service holds the rooms.
    /// Wrong keys for a linked draw spend tokens of a bucket of their own per draw (`link:<code>`),
    /// so a host cannot guess another draw's key through `configure` faster than through `auth`.
    private func pastDrawLinks(for code: String) -> PastDrawLinks {
        PastDrawLinks(
            // A room already made answers from memory, even unloaded (it keeps its winners and key
            // digest): resolving another draw's winners does not read it back or count as its use.
            winners: { [weak self] other in (self?.existingRoom(other) ?? self?.room(other))?.pastWinners },
            controls: { [weak self] other, key in
                guard let self, let room = existingRoom(other) ?? room(other) else { return false }
                let bucket = "link:" + code
                guard limiter.allows(bucket) else { return false }
                // The other draw's owner or a host-role operator (a presenter's key links nothing).
                guard (room as? DrawRoom).map({ $0.hostKeyHash.matches(key) || $0.operators.lookup(key)?.role == .host })
                        ?? room.isHostKey(key) else {
                    limiter.recordFailure(bucket)
                    metrics.authFailures.increment()
                    return false
                }
                return true
            },
            needsLoading: { [weak self] codes in
                guard let self else { return false }
                return known.withLock { known in
                    codes.contains { known.stored[$0] != nil && known.rooms[$0]?.winners == nil }
                }
            },
            load: { [weak self] codes, completion in
                // Draws whose winners are known (in memory or unloaded) need no read.
                let rooms = codes.filter { self?.existingRoom($0)?.winners == nil }.compactMap { self?.localRoom($0) }
                let remaining = Lock(rooms.count)
                if rooms.isEmpty { return completion() }
                for room in rooms {
                    room.whenRestored {
                        if remaining.withLock({ $0 -= 1; return $0 }) == 0 { completion() }
                    }
                }
            })
    }

    /// Creates a draw with a fresh code and host key (`POST /api/draws`); completion runs on the storage thread.
    func createDraw(config: DrawConfig, completion: @escaping @Sendable (Result<(code: String, key: String), any Error>) -> Void) {
        if let cluster { return cluster.createDraw(config: config, completion: completion) }
        let key = DrawKeys.newSecret()
        let taken = known.withLock { Set($0.stored.keys).union($0.deleted) }
        var fresh = DrawKeys.newCode()
        while taken.contains(fresh) { fresh = DrawKeys.newCode() }
        let code = fresh
        let loop = group.loops[0]
        let audit = self.audit
        let signer = settings.signer
        storage.async({ database in
            try Self.insertDraw(code: code, key: key, config: config,
                                audit: (audit, AuditEntry(actor: "admin", action: "create")), signer: signer, in: database)
        }, completion: { [self] result in
            switch result {
            case .success(let created):
                let room = DrawRoom(code: code, draw: created.draw, hostKeyHash: created.row.hostKeyHash, loop: loop,
                                    store: SQLiteDrawStore(storage: storage, audit: audit, signer: settings.signer), limiter: limiter,
                                    settings: settings, metrics: metrics, operators: operators.keys(for: code))
                known.withLock {
                    $0.stored[code] = created.row.hostKeyHash
                    $0.rooms[code] = room
                }
                room.connect(pastDrawLinks(for: code))
                completion(.success((code, key)))
            case .failure(let error):
                completion(.failure(error))
            }
        })
    }

    /// `http://<LAN address>:<port>`, the base of every link handed out. Set once the port is known.
    public var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue } }
    }

    /// The base URL for `configuration` on `port`: the first LAN address when listening everywhere.
    public static func baseURL(configuration: AppConfiguration, port: Int,
                               lanAddresses: [String] = NetworkInterfaces.lanIPv4Addresses()) -> String {
        let everywhere = configuration.host == "0.0.0.0" || configuration.host == "::"
        let host = everywhere ? (lanAddresses.first ?? "localhost") : configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Links for a draw; `base` is the client's view behind a trusted proxy (`https://…`).
    func links(code: String, key: String?, base: String? = nil) -> [String: String] {
        let base = base ?? baseURL
        var links = ["screenUrl": "\(base)/screen/\(code)", "watchUrl": "\(base)/watch/\(code)"]
        links["hostUrl"] = "\(base)/draw/\(code)" + (key.map { "#key=\($0)" } ?? "")
        return links
    }

    /// Stops ticks and the draw loop, then closes the store (after its queued writes).
    public func shutdown() {
        hostKeyWatch.stop()
        if let cluster {
            cluster.shutdown()
            storage.close()
            return
        }
        for room in known.withLock({ Array($0.rooms.values) }) { room.shutdown() }
        group.shutdown()
        storage.close()
    }
}

public enum DrawServiceError: Error, Sendable, CustomStringConvertible {
    case badCode(String)
    case badKey
    case deletedCode(String)

    public var description: String {
        switch self {
        case .badCode(let code): "--default-draw '\(code)' must be 1–64 letters, digits, '-' or '_'"
        case .badKey: "--host-key must be 1–256 printable ASCII characters without spaces"
        case .deletedCode(let code): "--default-draw \(code) was deleted; a deleted draw's code is never used again"
        }
    }
}
