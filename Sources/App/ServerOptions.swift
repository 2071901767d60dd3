import Beacon
import DrawRoomCore
import ClusterCore
import RedisStore
import DrawEngine
import Foundation
import HTTPCore
import Server

/// Command-line flags and `TOMBOLA_*` environment variables → `AppConfiguration`.
/// Flags win over the environment. Every message here is shown to the operator.
public enum ServerOptions {
    public enum Outcome: Sendable {
        case run(AppConfiguration)
        case help
    }

    public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    struct Option: Sendable {
        enum Kind: Sendable { case text, integer(ClosedRange<Int>), flag, list, network, choice([String]) }
        let name: String
        let environment: String
        let kind: Kind
        let valueName: String
        let help: String
        let apply: @Sendable (inout AppConfiguration, Value) -> Void
    }

    enum Value: Sendable {
        case text(String), integer(Int), flag(Bool)
    }

    static let options: [Option] = [
        Option(name: "port", environment: "TOMBOLA_PORT", kind: .integer(0...65535), valueName: "N",
               help: "TCP port to listen on (default 8080; 0 picks a free one)") { c, v in if case .integer(let n) = v { c.port = n } },
        Option(name: "host", environment: "TOMBOLA_HOST", kind: .text, valueName: "ADDR",
               help: "address to listen on (default 0.0.0.0, all interfaces)") { c, v in if case .text(let s) = v { c.host = s } },
        Option(name: "data", environment: "TOMBOLA_DATA", kind: .text, valueName: "DIR",
               help: "where draws are stored (default ./tombola-data)") { c, v in if case .text(let s) = v { c.dataDirectory = s } },
        Option(name: "public", environment: "TOMBOLA_PUBLIC", kind: .text, valueName: "DIR",
               help: "serve the pages from DIR instead of those built in (to work on them: --public Public)") { c, v in if case .text(let s) = v { c.publicDirectory = s } },
        Option(name: "default-draw", environment: "TOMBOLA_DEFAULT_DRAW", kind: .text, valueName: "CODE",
               help: "public code of the draw created at start-up") { c, v in if case .text(let s) = v { c.defaultDrawCode = s } },
        Option(name: "host-key", environment: "TOMBOLA_HOST_KEY", kind: .text, valueName: "KEY",
               help: "secret key that controls the default draw (16+ characters; shows in ps: prefer --host-key-file)") { c, v in
            if case .text(let s) = v { c.hostKey = s }
        },
        Option(name: "host-key-file", environment: "TOMBOLA_HOST_KEY_FILE", kind: .text, valueName: "FILE",
               help: "file holding the host key (one trailing newline is ignored)") { c, v in if case .text(let s) = v { c.hostKeyFile = s } },
        Option(name: "admin-key", environment: "TOMBOLA_ADMIN_KEY", kind: .text, valueName: "KEY",
               help: "secret key that creates and manages draws (16+ characters; default: generated once, kept in --data)") { c, v in
            if case .text(let s) = v { c.adminKey = s }
        },
        Option(name: "admin-key-file", environment: "TOMBOLA_ADMIN_KEY_FILE", kind: .text, valueName: "FILE",
               help: "file holding the admin key (one trailing newline is ignored)") { c, v in if case .text(let s) = v { c.adminKeyFile = s } },
        Option(name: "tick-hz", environment: "TOMBOLA_TICK_HZ", kind: .integer(1...120), valueName: "N",
               help: "rolling-number updates per second (default 20)") { c, v in if case .integer(let n) = v { c.tickHz = n } },
        Option(name: "access-log", environment: "TOMBOLA_ACCESS_LOG", kind: .flag, valueName: "",
               help: "print one line per request (never query strings)") { c, v in if case .flag(let b) = v { c.accessLog = b } },
        Option(name: "access-log-format", environment: "TOMBOLA_ACCESS_LOG_FORMAT", kind: .choice(["text", "combined"]), valueName: "FORMAT",
               help: "text (default) or combined (Apache/nginx Combined Log Format); turns the access log on") { c, v in
            if case .text(let s) = v, let format = AccessLogFormat(rawValue: s) { c.accessLogFormat = format; c.accessLog = true }
        },
        Option(name: "echo-endpoint", environment: "TOMBOLA_ECHO_ENDPOINT", kind: .flag, valueName: "",
               help: "serve /ws/echo for WebSocket conformance suites") { c, v in if case .flag(let b) = v { c.echoEndpoint = b } },
        Option(name: "allow-origin", environment: "TOMBOLA_ALLOW_ORIGIN", kind: .list, valueName: "ORIGIN",
               help: "another origin allowed to open WebSockets (repeatable)") { c, v in if case .text(let s) = v { c.allowedOrigins.append(s) } },
        Option(name: "trusted-proxy", environment: "TOMBOLA_TRUSTED_PROXY", kind: .network, valueName: "CIDR",
               help: "reverse proxy whose Forwarded/X-Forwarded-* headers are believed (repeatable)") { c, v in
            if case .text(let s) = v, let network = TrustedProxies.Network(s) { c.trustedProxies.networks.append(network) }
        },
        Option(name: "log-format", environment: "TOMBOLA_LOG_FORMAT", kind: .choice(["text", "json"]), valueName: "FORMAT",
               help: "text (default) or json: one JSON object per line") { c, v in
            if case .text(let s) = v, let format = LogFormat(rawValue: s) { c.logFormat = format }
        },
        Option(name: "max-connections", environment: "TOMBOLA_MAX_CONNECTIONS", kind: .integer(1...1_000_000), valueName: "N",
               help: "open connections before new ones get 503 (default 10000)") { c, v in if case .integer(let n) = v { c.maxConnections = n } },
        Option(name: "header-timeout", environment: "TOMBOLA_HEADER_TIMEOUT", kind: .integer(1...3600), valueName: "S",
               help: "seconds a request's head may take to arrive before 408 (default 10)") { c, v in if case .integer(let n) = v { c.headerTimeout = .seconds(n) } },
        Option(name: "idle-timeout", environment: "TOMBOLA_IDLE_TIMEOUT", kind: .integer(1...3600), valueName: "S",
               help: "seconds an idle or non-reading HTTP connection is kept (default 60)") { c, v in if case .integer(let n) = v { c.idleTimeout = .seconds(n) } },
        Option(name: "loops", environment: "TOMBOLA_LOOPS", kind: .integer(1...256), valueName: "N",
               help: "event-loop threads (default: one per core; one more serves calculator keys)") { c, v in if case .integer(let n) = v { c.loopCount = n } },
        Option(name: "max-pool-bytes", environment: "TOMBOLA_MAX_POOL_BYTES", kind: .integer(1 << 20...1 << 30), valueName: "N",
               help: "largest pool upload or import by a draw's host, in bytes (default 16777216; other requests: 1 MiB)") { c, v in
            if case .integer(let n) = v { c.maxPoolBytes = n }
        },
        Option(name: "unload-idle-after", environment: "TOMBOLA_UNLOAD_IDLE_AFTER", kind: .integer(0...86_400), valueName: "S",
               help: "unload a draw from memory after S seconds without a page or request (default 600; 0 never; at least 5)") { c, v in
            if case .integer(let n) = v { c.unloadIdleAfter = n == 0 ? 0 : max(n, 5) }
        },
        Option(name: "no-io-uring", environment: "TOMBOLA_NO_IO_URING", kind: .flag, valueName: "",
               help: "send with one write() per socket, not batched io_uring sends") { c, v in if case .flag(let b) = v { c.ioUring = !b } },
        Option(name: "drain-seconds", environment: "TOMBOLA_DRAIN_SECONDS", kind: .integer(0...3600), valueName: "S",
               help: "after SIGTERM, keep serving for S seconds with /readyz answering 503 (default 0)") { c, v in
            if case .integer(let n) = v { c.drainSeconds = n }
        },
        Option(name: "metrics-listen", environment: "TOMBOLA_METRICS_LISTEN", kind: .text, valueName: "ADDR",
               help: "serve /metrics on HOST:PORT only (e.g. 127.0.0.1:9090), not on the public port") { c, v in
            if case .text(let s) = v { c.metricsListenText = s }
        },
        Option(name: "redis", environment: "TOMBOLA_REDIS", kind: .text, valueName: "URL",
               help: "cluster mode: redis://HOST:PORT[/DB] shared by every instance (docs/CLUSTER.md)") { c, v in
            if case .text(let s) = v { c.redisURL = s }
        },
        Option(name: "redis-sentinel", environment: "TOMBOLA_REDIS_SENTINEL", kind: .text, valueName: "HOST:PORT[,…]",
               help: "cluster mode on the Redis primary these Sentinels name (with --redis-master; instead of --redis)") { c, v in
            if case .text(let s) = v { c.redisSentinels = s }
        },
        Option(name: "redis-master", environment: "TOMBOLA_REDIS_MASTER", kind: .text, valueName: "NAME",
               help: "with --redis-sentinel: the name the Sentinels monitor the primary under") { c, v in
            if case .text(let s) = v { c.redisMaster = s }
        },
        Option(name: "cluster-key", environment: "TOMBOLA_CLUSTER_KEY_FILE", kind: .text, valueName: "FILE",
               help: "cluster mode: file with the instances' shared 32-byte key (raw or 64 hex digits; or TOMBOLA_CLUSTER_KEY=hex)") { c, v in
            if case .text(let s) = v { c.clusterKeyFile = s }
        },
        Option(name: "allow-unsafe-redis", environment: "TOMBOLA_ALLOW_UNSAFE_REDIS", kind: .flag, valueName: "",
               help: "cluster mode on a Redis without appendonly yes + appendfsync always (may lose announced records)") { c, v in
            if case .flag(let b) = v { c.allowUnsafeRedis = b }
        },
        Option(name: "tsa", environment: "TOMBOLA_TSA", kind: .text, valueName: "URL",
               help: "an RFC 3161 time-stamping authority: each round's record is time-stamped there (http or https)") { c, v in
            if case .text(let s) = v { c.tsaURL = s }
        },
        Option(name: "webhook-allow-private", environment: "TOMBOLA_WEBHOOK_ALLOW_PRIVATE", kind: .flag, valueName: "",
               help: "let webhooks reach loopback, private and link-local addresses and plain http (a receiver on your LAN)") { c, v in
            if case .flag(let b) = v { c.webhookAllowPrivate = b }
        },
        Option(name: "private-draws", environment: "TOMBOLA_PRIVATE_DRAWS", kind: .flag, valueName: "",
               help: "new draws are private: pages, exports and proofs carry masked names and public ids, never a list's names") { c, v in
            if case .flag(let b) = v { c.privateDraws = b }
        },
        Option(name: "beacon-relay", environment: "TOMBOLA_BEACON_RELAY", kind: .list, valueName: "URL",
               help: "drand relay for beacon-sealed draws (repeatable; default api.drand.sh and drand.cloudflare.com)") { c, v in
            if case .text(let s) = v { c.beaconRelays.append(s) }
        },
        Option(name: "beacon-allow-http", environment: "TOMBOLA_BEACON_ALLOW_HTTP", kind: .flag, valueName: "",
               help: "accept plain-http beacon relays (tests, a relay on your LAN)") { c, v in if case .flag(let b) = v { c.beacon.allowHTTP = b } },
        Option(name: "beacon-chain", environment: "TOMBOLA_BEACON_CHAIN", kind: .text, valueName: "HEX",
               help: "another drand chain's hash (with --beacon-public-key, -genesis, -period; default quicknet)") { c, v in
            if case .text(let s) = v { c.beaconChainParts.hash = s }
        },
        Option(name: "beacon-public-key", environment: "TOMBOLA_BEACON_PUBLIC_KEY", kind: .text, valueName: "HEX",
               help: "that chain's BLS public key (192 hex digits)") { c, v in if case .text(let s) = v { c.beaconChainParts.publicKey = s } },
        Option(name: "beacon-genesis", environment: "TOMBOLA_BEACON_GENESIS", kind: .integer(1...Int(Int32.max)), valueName: "S",
               help: "that chain's genesis (Unix seconds)") { c, v in if case .integer(let n) = v { c.beaconChainParts.genesis = n } },
        Option(name: "beacon-period", environment: "TOMBOLA_BEACON_PERIOD", kind: .integer(1...3600), valueName: "S",
               help: "that chain's period (seconds)") { c, v in if case .integer(let n) = v { c.beaconChainParts.period = n } },
    ]

    /// `127.0.0.1:9090`, `[::1]:9090` or `0.0.0.0:9090` (port 0 picks one).
    static func listenAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" "), !host.contains("[") else { return nil }
        return (host, port)
    }

    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> Outcome {
        var configuration = AppConfiguration()
        for option in options {
            guard let raw = environment[option.environment], !raw.isEmpty else { continue }
            switch option.kind {
            case .list:
                for item in raw.split(separator: ",") { option.apply(&configuration, .text(String(item).trimmedSpaces)) }
            case .network:
                for item in raw.split(separator: ",") {
                    option.apply(&configuration, try value(String(item).trimmedSpaces, for: option, source: option.environment))
                }
            case .flag:
                guard let on = parseBool(raw) else {
                    throw UsageError(message: "\(option.environment) must be 1/0, true/false or yes/no, not '\(raw)'")
                }
                option.apply(&configuration, .flag(on))
            default:
                option.apply(&configuration, try value(raw, for: option, source: option.environment))
            }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            guard argument.hasPrefix("--") else {
                throw UsageError(message: "unexpected argument '\(argument)'")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown option '--\(name)'")
            }
            if case .flag = option.kind {
                if let inline {
                    guard let on = parseBool(inline) else { throw UsageError(message: "--\(name) takes no value") }
                    option.apply(&configuration, .flag(on))
                } else {
                    option.apply(&configuration, .flag(true))
                }
                continue
            }
            let raw: String
            if let inline {
                raw = inline
            } else {
                guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value (\(option.valueName))") }
                raw = arguments[index]
                index += 1
            }
            option.apply(&configuration, try value(raw, for: option, source: "--\(name)"))
        }
        configuration.cluster = try clusterSettings(configuration, keyHex: environment["TOMBOLA_CLUSTER_KEY"])
        configuration.hostKey = try OperatorKey.resolve("host", key: configuration.hostKey, file: configuration.hostKeyFile)
        configuration.adminKey = try OperatorKey.resolve("admin", key: configuration.adminKey, file: configuration.adminKeyFile)
        try resolveBeacon(&configuration)
        if let tsa = configuration.tsaURL, !isTimeStampURL(tsa) {
            throw UsageError(message: "--tsa must be an http:// or https:// URL of an RFC 3161 time-stamping authority, not '\(tsa)'")
        }
        if let text = configuration.metricsListenText {
            guard let address = listenAddress(text) else {
                throw UsageError(message: "--metrics-listen must be HOST:PORT (an IPv6 host in brackets), not '\(text)'")
            }
            configuration.metricsListen = address
        }
        return .run(configuration)
    }

    /// `scheme://host[:port]` of each URL, once each, in order (for CSP `connect-src`); a URL
    /// whose host holds anything but letters, digits, `.-:[]` is left out.
    static func origins(of urls: [String]) -> [String] {
        var origins: [String] = []
        for url in urls {
            guard let scheme = url.range(of: "://") else { continue }
            let authority = url[scheme.upperBound...].prefix { $0 != "/" }
            guard !authority.isEmpty, authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }) else { continue }
            let origin = url[..<scheme.upperBound].lowercased() + authority.lowercased()
            if !origins.contains(origin) { origins.append(origin) }
        }
        return origins
    }

    /// An http(s) URL with a host and nothing a request line could not carry (`--tsa`).
    static func isTimeStampURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else { return false }
        let host = text.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" }
        return !host.isEmpty && text.count <= 2048 && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f }
    }

    /// The beacon relays (each an https URL, or http with `--beacon-allow-http`) and chain.
    private static func resolveBeacon(_ configuration: inout AppConfiguration) throws(UsageError) {
        if !configuration.beaconRelays.isEmpty { configuration.beacon.relays = configuration.beaconRelays }
        for relay in configuration.beacon.relays {
            if let problem = BeaconClient.relayProblem(relay, allowHTTP: configuration.beacon.allowHTTP) {
                throw UsageError(message: "--beacon-relay: " + problem.replacingOccurrences(of: "--allow-http", with: "--beacon-allow-http"))
            }
        }
        // Pages fetch a sealed round's drand value themselves: from the public relays and these.
        configuration.server.connectSources = Self.origins(of: BeaconChain.publicRelays + configuration.beacon.relays)
        let parts = configuration.beaconChainParts
        guard !parts.isEmpty else { return }
        guard let hash = parts.hash, let key = parts.publicKey, let genesis = parts.genesis, let period = parts.period else {
            throw UsageError(message: "--beacon-chain needs --beacon-public-key, --beacon-genesis and --beacon-period too")
        }
        let chain = BeaconChain(hash: hash, publicKey: key, genesis: Int64(genesis), period: Int64(period))
        guard chain.isWellFormed else {
            throw UsageError(message: "--beacon-chain must be 64 lower-case hex digits and --beacon-public-key 192")
        }
        configuration.beacon.chain = chain
    }

    /// `--redis` with its key, or nil for single-box. The key's bytes are never shown.
    private static func clusterSettings(_ configuration: AppConfiguration, keyHex: String?) throws(UsageError) -> ClusterSettings? {
        let sentinel = try sentinelSettings(configuration)
        guard let url = configuration.redisURL ?? sentinel.map({ "redis://" + $0.sentinels[0].host + ":\($0.sentinels[0].port)" }) else {
            if configuration.clusterKeyFile != nil || configuration.allowUnsafeRedis {
                throw UsageError(message: "--cluster-key and --allow-unsafe-redis need --redis")
            }
            return nil
        }
        guard let endpoint = RedisEndpoint(url: url) else {
            throw UsageError(message: "--redis must look like redis://HOST:PORT[/DB] (a password as redis://:PASSWORD@HOST:PORT)")
        }
        let key: [UInt8]
        if let path = configuration.clusterKeyFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError(message: "--cluster-key: cannot read '\(path)'")
            }
            guard let parsed = clusterKey(Array(data)) else {
                throw UsageError(message: "--cluster-key: '\(path)' must hold exactly 32 bytes, or 64 hex digits")
            }
            key = parsed
        } else if let keyHex, !keyHex.isEmpty {
            guard let parsed = clusterKey(Array(keyHex.utf8)) else {
                throw UsageError(message: "TOMBOLA_CLUSTER_KEY must be 64 hex digits (32 bytes)")
            }
            key = parsed
        } else {
            throw UsageError(message: "cluster mode needs the instances' shared key: --cluster-key FILE or TOMBOLA_CLUSTER_KEY "
                                 + "(32 bytes; make one with: head -c 32 /dev/urandom > cluster.key)")
        }
        var settings = ClusterSettings(endpoint: endpoint, key: key, allowUnsafeRedis: configuration.allowUnsafeRedis)
        settings.sentinel = sentinel
        return settings
    }

    /// `--redis-sentinel` with `--redis-master`, or nil. Either without the other, or beside
    /// `--redis`, is a usage error.
    private static func sentinelSettings(_ configuration: AppConfiguration) throws(UsageError) -> SentinelSettings? {
        switch (configuration.redisSentinels, configuration.redisMaster) {
        case (nil, nil):
            return nil
        case (nil, _?), (_?, nil):
            throw UsageError(message: "--redis-sentinel and --redis-master go together")
        case (let list?, let name?):
            guard configuration.redisURL == nil else {
                throw UsageError(message: "give either --redis or --redis-sentinel, not both")
            }
            guard let sentinels = SentinelSettings.addresses(list) else {
                throw UsageError(message: "--redis-sentinel must look like HOST:PORT[,HOST:PORT…] (addresses, e.g. 10.0.0.5:26379)")
            }
            guard !name.isEmpty, name.count <= 128, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                throw UsageError(message: "--redis-master must be the name the Sentinels monitor (letters, digits, - _ .)")
            }
            return SentinelSettings(sentinels: sentinels, masterName: name)
        }
    }

    /// 32 raw bytes, or 64 hex digits with surrounding white space.
    static func clusterKey(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes.count == 32 { return bytes }
        let trimmed = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
        guard trimmed.utf8.count == 64, let decoded = Hex.decode(trimmed), decoded.count == 32 else { return nil }
        return decoded
    }

    private static func value(_ raw: String, for option: Option, source: String) throws(UsageError) -> Value {
        switch option.kind {
        case .integer(let range):
            guard let number = Int(raw), range.contains(number) else {
                throw UsageError(message: "\(source) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(raw)'")
            }
            return .integer(number)
        case .text, .list:
            guard !raw.isEmpty else { throw UsageError(message: "\(source) needs a non-empty value") }
            return .text(raw)
        case .network:
            guard TrustedProxies.Network(raw) != nil else {
                throw UsageError(message: "\(source) must be an IP address or a network such as 10.0.0.0/8 or fd00::/8, not '\(raw)'")
            }
            return .text(raw)
        case .choice(let choices):
            guard choices.contains(raw) else {
                throw UsageError(message: "\(source) must be \(choices.joined(separator: " or ")), not '\(raw)'")
            }
            return .text(raw)
        case .flag:
            return .flag(true)
        }
    }

    private static func parseBool(_ raw: String) -> Bool? {
        switch raw.lowercased() {
        case "1", "true", "yes", "on": true
        case "0", "false", "no", "off": false
        default: nil
        }
    }

    /// The `--help` text.
    public static var usage: String {
        var text = """
        Usage: tombola [options]
               tombola calc KEYS…
               tombola verify FILE
               tombola backup --data DIR FILE
               tombola restore --data DIR FILE
               tombola host-link CODE [--data DIR | --redis URL --cluster-key FILE] [--host ADDR] [--port N]
               tombola admin-link [--data DIR] [--host ADDR] [--port N]
               tombola --version

        Serves the Tombola raffle and calculator. Every option can also be set with the
        environment variable shown.

        Options:

        """
        for option in options {
            let flag = "--\(option.name)" + (option.valueName.isEmpty ? "" : " \(option.valueName)")
            text += "  " + flag.padded(to: 26) + option.help + "  [\(option.environment)]\n"
        }
        text += "  " + "--help".padded(to: 26) + "show this help\n"
        return text
    }
}

extension String {
    fileprivate var trimmedSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

    fileprivate func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
