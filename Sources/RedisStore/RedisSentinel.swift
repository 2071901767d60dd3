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

/// Finds and follows the primary of a Sentinel-monitored Redis. `locate` asks every Sentinel
/// at once (`SENTINEL get-master-addr-by-name` and `SENTINEL MASTER`, 500 ms each) and takes the
/// primary of the newest configuration among the answers (the highest `config-epoch`; on a tie
/// the Sentinel that answered last first); a subscriber on one Sentinel hears `+switch-master`
/// and asks again, and each new primary goes to every connection that follows it (they drop
/// their connection and connect there at once). A switch missed while no Sentinel was
/// reachable is caught when the subscriber reconnects (it asks again), and by each
/// connection's own attempts: every reconnect asks the Sentinels first, and a connection only
/// becomes ready on a server whose `ROLE` is master.
///
/// Sentinels disagree for a while after every failover, and for longer after a stalled or
/// spurious one: a Sentinel that has not heard of it (or never will, cut off from the others)
/// still names the old primary, which may be dead, or alive and still calling itself master
/// until the Sentinels demote it. Asking one Sentinel and trusting it let a connection follow
/// such a laggard for seconds (CI saw more than 10 s). So the newest configuration wins, a
/// Sentinel that names a primary it itself sees down (`s_down`/`o_down` for that address, as
/// redis-py checks) is not counted, `+switch-master` (which carries no epoch) only triggers a
/// lookup, and when a named primary cannot be used `passOver` moves the preference on.
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
    /// The Sentinel whose answer gave `primary`, until a connection there failed (`passOver`).
    private var answeredBy: Int?
    /// The `config-epoch` of the configuration that named `primary`. Loop only.
    public private(set) var primaryEpoch: Int64 = 0
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

    /// Asks every Sentinel for the primary and takes the newest configuration's; nil when none
    /// names a primary it does not see down. Loop only; `completion` runs on the loop, never
    /// inside this call.
    public func locate(_ completion: @escaping (RedisEndpoint?) -> Void) {
        let count = settings.sentinels.count
        var named: [Named] = []
        var pending = count
        loop.scheduleTimer(after: .zero) { [self] in
            for index in 0..<count {
                Self.query(settings.sentinels[index], [["SENTINEL", "get-master-addr-by-name", settings.masterName],
                                                       ["SENTINEL", "master", settings.masterName]],
                           timeout: lookupTimeout, loop: loop) { [weak self] result in
                    if case .success(let replies) = result, let answer = Self.usablePrimary(replies) {
                        named.append(Named(sentinel: index, endpoint: answer.endpoint, epoch: answer.epoch))
                    }
                    pending -= 1
                    guard pending == 0 else { return }
                    guard let self, !self.isClosed,
                          let best = Self.newest(named, preferred: self.preferred, count: count) else { return completion(nil) }
                    self.preferred = best.sentinel
                    self.answeredBy = best.sentinel
                    self.primaryEpoch = best.epoch
                    self.learned(best.endpoint)
                    completion(self.primary)
                }
            }
        }
    }

    /// One Sentinel's answer.
    struct Named: Equatable {
        var sentinel: Int
        var endpoint: RedisEndpoint
        var epoch: Int64
    }

    /// The answer of the newest configuration (highest epoch); on a tie, the first Sentinel
    /// from `preferred` on.
    static func newest(_ answers: [Named], preferred: Int, count: Int) -> Named? {
        answers.max { a, b in
            if a.epoch != b.epoch { return a.epoch < b.epoch }
            return (a.sentinel - preferred + count) % count > (b.sentinel - preferred + count) % count
        }
    }

    /// A connection could not use `endpoint` as the primary (it was not reached, or its `ROLE`
    /// was not master): when that is the address the preferred Sentinel gave, the next lookup
    /// starts at the next Sentinel. Loop only.
    func passOver(_ endpoint: RedisEndpoint) {
        guard let answeredBy, answeredBy == preferred, let primary,
              primary.host == endpoint.host, primary.port == endpoint.port else { return }
        self.answeredBy = nil
        preferred = (preferred + 1) % settings.sentinels.count
    }

    /// The primary named by a Sentinel's answers to `get-master-addr-by-name` and `SENTINEL
    /// MASTER`; nil when it names none, or names the master it itself flags down (a Sentinel
    /// that has not heard of a failover yet). During a failover `get-master-addr-by-name`
    /// already names the promoted replica, which is not the address flagged down.
    static func usablePrimary(_ replies: [RedisReply]) -> (endpoint: RedisEndpoint, epoch: Int64)? {
        guard replies.count == 2, let parts = replies[0].array, parts.count == 2,
              let host = parts[0].string, let port = parts[1].string.flatMap({ Int($0) }) else { return nil }
        let named = RedisEndpoint(host: host, port: port)
        guard let fields = replies[1].array else { return (named, 0) }  // no state to check
        var state: [String: String] = [:]
        var index = 0
        while index + 1 < fields.count {
            if let key = fields[index].string, let value = fields[index + 1].string { state[key] = value }
            index += 2
        }
        let flags = (state["flags"] ?? "").split(separator: ",")
        let down = flags.contains("s_down") || flags.contains("o_down")
        let sameAddress = state["ip"] == host && state["port"] == String(port)
        return down && sameAddress ? nil : (named, state["config-epoch"].flatMap { Int64($0) } ?? 0)
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
            // The message carries no epoch, and the Sentinel sending it may itself lag behind
            // a newer failover: ask them all.
            let words = String(decoding: payload, as: UTF8.self).split(separator: " ")
            guard let self, words.count == 5, words[0] == self.settings.masterName else { return }
            self.locate { _ in }
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

    /// Commands pipelined on a connection of their own, closed after the last reply or
    /// `timeout`; the replies in order, or the first failure. Loop only.
    static func query(_ endpoint: RedisEndpoint, _ commands: [[String]], timeout: Duration, loop: EventLoop,
                      _ completion: @escaping (Result<[RedisReply], RedisError>) -> Void) {
        let connection = HiredisConnection(loop: loop)
        var answered = false
        var replies: [RedisReply] = []
        func finish(_ result: Result<[RedisReply], RedisError>) {
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
        for arguments in commands {
            connection.send(arguments.map { Array($0.utf8) }) { result in
                switch result {
                case .failure(let error):
                    timer.cancel()
                    finish(.failure(error))
                    connection.close(reason: .closed)
                case .success(let reply):
                    replies.append(reply)
                    guard replies.count == commands.count else { return }
                    timer.cancel()
                    finish(.success(replies))
                    connection.close(reason: .closed)
                }
            }
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
