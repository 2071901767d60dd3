import DrawRoomCore
import ClusterCore
import Server
import Storage

extension DrawService {
    /// Cluster mode (`--redis`): checks Redis's durability, agrees on the default draw with
    /// the other instances and starts competing for its lease. Blocks; call before the server starts.
    public static func openCluster(configuration: AppConfiguration, cluster settings: ClusterSettings,
                                   metrics registry: MetricsRegistry = MetricsRegistry(),
                                   slowDown: Duration = .milliseconds(1500)) throws -> DrawService {
        if let wanted = configuration.defaultDrawCode, !DrawKeys.isValidCode(wanted) { throw DrawServiceError.badCode(wanted) }
        if let key = configuration.hostKey, !DrawKeys.isPlausibleKey(key) { throw DrawServiceError.badKey }
        let storage = try StorageQueue(directory: configuration.dataDirectory)
        // One signing key for every instance, derived from the cluster key (issue #47, docs/CLUSTER.md).
        var roomSettings = DrawRoomSettings(tickHz: configuration.tickHz, slowDown: slowDown, beacon: configuration.beacon,
                                            software: BinaryIdentity.software, signer: ServerSigning.derived(clusterKey: settings.key),
                                            privateDraws: configuration.privateDraws)
        // No instance sweeps retention (`startRetention` is single-box): `retentionDays` is refused.
        roomSettings.sweepsRetention = false
        var settings = settings
        settings.software = BinaryIdentity.software
        // A forwarded Stop of a beacon-sealed round is answered once drand round R came (or was void).
        settings.sealedStopWait = configuration.beacon.longestWait
        let limiter = AuthRateLimiter(burst: 5, refill: .seconds(2))
        let metrics = DrawMetrics(registry: registry)
        do {
            let (runtime, defaultDraw) = try ClusterRuntime.start(settings: settings, configuration: configuration, limiter: limiter,
                                                                  roomSettings: roomSettings, metrics: metrics)
            // Hooks and their status in Redis; the owner of a draw delivers its events (docs/CLUSTER.md, Webhooks).
            ServerWebhooks.install(WebhookRegistry.cluster(client: runtime.client, allowPrivate: configuration.webhookAllowPrivate))
            // The owner of a draw time-stamps its rounds' chain heads, kept in Redis (docs/FAIRNESS.md §18).
            ServerTimeStamping.install(tsa: configuration.tsaURL)
            // Unused in cluster mode (branding lives in Redis: ClusterBranding); the service's type wants one.
            let branding = try BrandingStore(storage: storage)
            // The admin key is this instance's (its data directory): give every instance the same one.
            let admin = try storage.sync { database in try AdminKey.resolve(given: configuration.adminKey, in: database) }
            // Cluster mode: every instance serves every draw of the cluster; one owns each.
            registry.gauge("tombola_draw_rooms", help: "Draws this server holds.") { Double(runtime.nodes.count) }
            registry.gauge("tombola_cluster_draws_owned", help: "Draws whose lease this instance holds (cluster mode).") {
                Double(runtime.nodes.values.reduce(0) { $0 + ($1.isOwner ? 1 : 0) })
            }
            return DrawService(cluster: runtime, defaultDraw: defaultDraw, admin: admin, storage: storage,
                               branding: branding, settings: runtime.roomSettings, limiter: limiter, metrics: metrics, registry: registry)
        } catch {
            storage.close()
            throw error
        }
    }
}
