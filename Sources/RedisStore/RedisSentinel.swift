import Posix

/// Redis behind Sentinel (`--redis-sentinel HOST:PORT[,HOST:PORT…] --redis-master NAME`):
/// the Sentinels to ask and the name of the primary they monitor.
public struct SentinelSettings: Sendable, Equatable {
    public var sentinels: [RedisEndpoint]
    public var masterName: String

    public init(sentinels: [RedisEndpoint], masterName: String) {
        self.sentinels = sentinels
        self.masterName = masterName
    }

    /// Parses `HOST:PORT[,HOST:PORT…]` (an IPv6 host in brackets); nil when any part is not one.
    public static func addresses(_ text: String) -> [RedisEndpoint]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard !parts.isEmpty, parts.count <= 16 else { return nil }
        var found: [RedisEndpoint] = []
        for part in parts {
            guard !part.isEmpty, !part.contains("/"), !part.contains("@"),
                  let endpoint = RedisEndpoint(url: "redis://" + part),
                  part.hasSuffix(":\(endpoint.port)") else { return nil }
            found.append(endpoint)
        }
        return found
    }

    /// `sentinel NAME via host:port,…` for logs.
    public var description: String {
        "sentinel \(masterName) via " + sentinels.map { "\($0.host):\($0.port)" }.joined(separator: ",")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// Finds and follows the primary of a Sentinel-monitored Redis. `locate` asks the Sentinels in
/// turn (`SENTINEL get-master-addr-by-name`, the one that answered last first); a subscriber on
/// one Sentinel hears `+switch-master` and hands the new primary to every connection that
/// follows it (they drop their connection and connect there at once). A switch missed while
/// no Sentinel was reachable is caught when the subscriber reconnects (it asks again), and by
/// each connection's own attempts: every reconnect asks the Sentinels first, and a connection
/// only becomes ready on a server whose `ROLE` is master.
///
/// Loop-confined; `start`/`close` hop there. `@unchecked Sendable` for that reason.
public final class RedisPrimaryLocator: @unchecked Sendable {
    public let settings: SentinelSettings
    public let loop: EventLoop
    public let options: RedisOptions
    /// The primary last named by a Sentinel. Loop only.
    public private(set) var primary: RedisEndpoint?
    /// Times a Sentinel announced a new primary (`+switch-master`) or a lookup found one moved. Loop only.
    public private(set) var switches = 0
    private var preferred = 0
    private var followers: [(RedisEndpoint) -> Void] = []
    private var watcher: RedisSubscriber?
    private var isClosed = false
    /// How long one Sentinel may take to answer a lookup.
    var lookupTimeout: Duration = .milliseconds(500)

    public init(settings: SentinelSettings, loop: EventLoop, options: RedisOptions = RedisOptions()) {
        precondition(!settings.sentinels.isEmpty, "Sentinel needs at least one address")
        self.settings = settings
        self.loop = loop
        self.options = options
    }

    /// Starts listening for `+switch-master`. Any thread.
    public func start() {
        loop.execute { self.startOnLoop() }
    }

    /// Stops listening. Any thread.
    public func close() {
        loop.execute {
            self.isClosed = true
            self.watcher?.close()
            self.watcher = nil
            self.followers = []
        }
    }

    /// Calls `handler` with each new primary. Loop only.
    func onSwitch(_ handler: @escaping (RedisEndpoint) -> Void) {
        followers.append(handler)
    }

    /// Asks the Sentinels for the primary, one after the other until one names it; nil when
    /// none does. Loop only; `completion` runs on the loop, never inside this call.
    public func locate(_ completion: @escaping (RedisEndpoint?) -> Void) {
        let count = settings.sentinels.count
        func ask(_ tried: Int) {
            guard tried < count, !isClosed else { return completion(nil) }
            let index = (preferred + tried) % count
            Self.query(settings.sentinels[index], ["SENTINEL", "get-master-addr-by-name", settings.masterName],
                       timeout: lookupTimeout, loop: loop) { [weak self] result in
                guard let self else { return completion(nil) }
                if case .success(let reply) = result, let parts = reply.array, parts.count == 2,
                   let host = parts[0].string, let port = parts[1].string.flatMap({ Int($0) }) {
                    self.preferred = index
                    self.learned(RedisEndpoint(host: host, port: port))
                    completion(self.primary)
                } else {
                    ask(tried + 1)
                }
            }
        }
        loop.scheduleTimer(after: .zero) { ask(0) }
    }

    private func learned(_ endpoint: RedisEndpoint) {
        let moved = primary.map { $0.host != endpoint.host || $0.port != endpoint.port } ?? false
        primary = endpoint
        guard moved else { return }
        switches += 1
        for follower in followers { follower(endpoint) }
    }

    private func startOnLoop() {
        guard !isClosed, watcher == nil else { return }
        var options = options
        options.maximumBackoff = .milliseconds(500)
        let watcher = RedisSubscriber(endpoint: settings.sentinels[0], loop: loop, options: options)
        var next = 0
        watcher.resolveEndpoint = { [weak self] done in
            guard let self else { return done(nil) }
            // Each attempt tries the next Sentinel, so a dead one is passed over.
            let endpoint = self.settings.sentinels[next % self.settings.sentinels.count]
            next += 1
            done(endpoint)
        }
        watcher.subscribe("+switch-master") { [weak self] payload in
            // "<name> <old ip> <old port> <new ip> <new port>"
            let words = String(decoding: payload, as: UTF8.self).split(separator: " ")
            guard let self, words.count == 5, words[0] == self.settings.masterName, let port = Int(words[4]) else { return }
            self.learned(RedisEndpoint(host: String(words[3]), port: port))
        }
        var connections = 0
        watcher.onReady { [weak self, weak watcher] in
            // A switch announced while we were not listening: ask again.
            guard let self, let watcher, watcher.readyCount != connections else { return }
            connections = watcher.readyCount
            self.locate { _ in }
        }
        self.watcher = watcher
        watcher.start()
    }

    /// One command on a connection of its own, closed after the reply or `timeout`. Loop only.
    static func query(_ endpoint: RedisEndpoint, _ arguments: [String], timeout: Duration, loop: EventLoop,
                      _ completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        let connection = HiredisConnection(loop: loop)
        var answered = false
        func finish(_ result: Result<RedisReply, RedisError>) {
            guard !answered else { return }
            answered = true
            completion(result)
        }
        do {
            try connection.connect(host: endpoint.host, port: endpoint.port) { reason in finish(.failure(reason)) }
        } catch {
            loop.scheduleTimer(after: .zero) { finish(.failure(error)) }
            return
        }
        let timer = loop.scheduleTimer(after: timeout) { connection.close(reason: .timedOut) }
        if let password = endpoint.password {
            connection.send([Array("AUTH".utf8), Array(password.utf8)]) { _ in }
        }
        connection.send(arguments.map { Array($0.utf8) }) { result in
            timer.cancel()
            finish(result)
            connection.close(reason: .closed)
        }
    }
}

/// What a connection to a Sentinel-named primary checks before it counts as ready: the server
/// is the primary (`ROLE`: a demoted one that came back as a replica is refused) and, unless
/// overridden, still keeps an AOF fsynced on every write (the start-up check, again on each
/// new primary).
enum PrimaryCheck {
    static func verify(requireDurable: Bool) -> (HiredisConnection, @escaping (String?) -> Void) -> Void {
        { connection, done in
            connection.send([Array("ROLE".utf8)]) { result in
                guard case .success(let reply) = result, let role = reply.array?.first?.string else {
                    return done("ROLE failed: \(result)")
                }
                guard role == "master" else { return done("not the primary (ROLE \(role))") }
                guard requireDurable else { return done(nil) }
                var values: [String] = []
                for name in ["appendonly", "appendfsync"] {
                    connection.send([Array("CONFIG".utf8), Array("GET".utf8), Array(name.utf8)]) { result in
                        let value = (try? result.get())?.array.flatMap { $0.count == 2 ? $0[1].string : nil } ?? "unknown"
                        values.append(value)
                        guard values.count == 2 else { return }
                        let report = DurabilityReport(appendonly: values[0], appendfsync: values[1])
                        done(report.isDurable ? nil : "\(ClusterError.notDurable(appendonly: values[0], appendfsync: values[1]))")
                    }
                }
            }
        }
    }
}
