import DrawEngine
import Foundation
import Testing
@testable import App
@testable import Server

@Suite struct ServerOptionsTests {
    private func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> AppConfiguration {
        guard case .run(let configuration) = try ServerOptions.parse(arguments, environment: environment) else {
            throw ServerOptions.UsageError(message: "expected run")
        }
        return configuration
    }

    @Test func defaultsMatchTheSpec() throws {
        let c = try configuration([])
        #expect(c.port == 8080)
        #expect(c.host == "0.0.0.0")
        #expect(c.dataDirectory == "./tombola-data")
        #expect(c.publicDirectory == nil && c.pageBundle?.files.contains { $0.path == "draw.html" } == true)
        #expect(c.tickHz == 20)
        #expect(!c.accessLog && !c.echoEndpoint)
        #expect(c.ioUring)
        #expect(c.headerTimeout == .seconds(10) && c.idleTimeout == .seconds(60))
    }

    @Test func everyFlagSetsItsField() throws {
        let c = try configuration([
            "--port", "9000", "--host", "127.0.0.1", "--data", "/d", "--public=/p", "--default-draw", "main",
            "--host-key", "host-key-0123456789", "--admin-key", "admin-key-0123456789", "--tick-hz", "30", "--access-log", "--echo-endpoint",
            "--allow-origin", "https://a.example", "--allow-origin", "https://b.example", "--max-connections", "5", "--loops", "3",
            "--no-io-uring", "--header-timeout", "3", "--idle-timeout=7",
        ])
        #expect(c.port == 9000 && c.host == "127.0.0.1" && c.dataDirectory == "/d" && c.publicDirectory == "/p")
        #expect(c.defaultDrawCode == "main" && c.hostKey == "host-key-0123456789" && c.adminKey == "admin-key-0123456789" && c.tickHz == 30)
        #expect(c.accessLog && c.echoEndpoint)
        #expect(c.allowedOrigins == ["https://a.example", "https://b.example"])
        #expect(c.maxConnections == 5 && c.loopCount == 3)
        #expect(!c.ioUring)
        #expect(c.headerTimeout == .seconds(3) && c.idleTimeout == .seconds(7))
    }

    @Test func environmentSetsValuesAndFlagsWin() throws {
        let environment = ["TOMBOLA_PORT": "7000", "TOMBOLA_ACCESS_LOG": "yes", "TOMBOLA_ALLOW_ORIGIN": "https://a, https://b",
                           "TOMBOLA_ADMIN_KEY": "env-admin-key-0123456"]
        let c = try configuration(["--port", "7001"], environment: environment)
        #expect(c.port == 7001)
        #expect(c.accessLog)
        #expect(c.allowedOrigins == ["https://a", "https://b"])
        #expect(c.adminKey == "env-admin-key-0123456")
    }

    @Test(arguments: [
        (["--port", "70000"], "--port must be a whole number from 0 to 65535, not '70000'"),
        (["--port"], "--port needs a value (N)"),
        (["--bogus"], "unknown option '--bogus'"),
        (["serve"], "unexpected argument 'serve'"),
        (["--tick-hz", "0"], "--tick-hz must be a whole number from 1 to 120, not '0'"),
        (["--header-timeout", "0"], "--header-timeout must be a whole number from 1 to 3600, not '0'"),
        (["--access-log=maybe"], "--access-log takes no value"),
        (["--host", ""], "--host needs a non-empty value"),
        (["--trusted-proxy", "10.0.0.0/33"],
         "--trusted-proxy must be an IP address or a network such as 10.0.0.0/8 or fd00::/8, not '10.0.0.0/33'"),
        (["--trusted-proxy", "proxy.example"],
         "--trusted-proxy must be an IP address or a network such as 10.0.0.0/8 or fd00::/8, not 'proxy.example'"),
        (["--log-format", "xml"], "--log-format must be text or json, not 'xml'"),
        (["--admin-key", "a"], "--admin-key: the admin key must be at least 16 characters, this one has 1 "
            + "(make one with: head -c 20 /dev/urandom | base32)"),
        (["--host-key", "fifteen-chars-k"], "--host-key: the host key must be at least 16 characters, this one has 15 "
            + "(make one with: head -c 20 /dev/urandom | base32)"),
        (["--host-key", "sixteen chars ok"], "--host-key: the host key must be printable ASCII without spaces, at most 256 characters"),
        (["--admin-key-file", "/nonexistent/admin.key"], "--admin-key-file: '/nonexistent/admin.key' does not exist"),
        (["--host-key-file", "/"], "--host-key-file: cannot read '/' (a directory, or no permission?)"),
        (["--admin-key", "admin-key-0123456789", "--admin-key-file", "/x"], "give --admin-key or --admin-key-file, not both"),
        (["--access-log-format", "apache"], "--access-log-format must be text or combined, not 'apache'"),
        (["--drain-seconds", "3601"], "--drain-seconds must be a whole number from 0 to 3600, not '3601'"),
        (["--metrics-listen", "9090"], "--metrics-listen must be HOST:PORT (an IPv6 host in brackets), not '9090'"),
        (["--metrics-listen", "127.0.0.1:70000"], "--metrics-listen must be HOST:PORT (an IPv6 host in brackets), not '127.0.0.1:70000'"),
        (["--tsa", "freetsa.org/tsr"], "--tsa must be an http:// or https:// URL of an RFC 3161 time-stamping authority, not 'freetsa.org/tsr'"),
        (["--tsa", "https:///tsr"], "--tsa must be an http:// or https:// URL of an RFC 3161 time-stamping authority, not 'https:///tsr'"),
        (["--tsa", "https://tsa.example/a b"], "--tsa must be an http:// or https:// URL of an RFC 3161 time-stamping authority, not 'https://tsa.example/a b'"),
    ])
    func badUsageIsExplained(arguments: [String], message: String) {
        #expect(throws: ServerOptions.UsageError(message: message)) { try ServerOptions.parse(arguments) }
    }

    @Test func shortKeysFromTheEnvironmentAreRefusedWithoutShowingThem() {
        #expect(throws: ServerOptions.UsageError(message: "--admin-key: the admin key must be at least 16 characters, this one has 6 "
                                                 + "(make one with: head -c 20 /dev/urandom | base32)")) {
            try ServerOptions.parse([], environment: ["TOMBOLA_ADMIN_KEY": "secret"])
        }
    }

    @Test func keyFilesAreReadWithoutTheirTrailingNewline() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let host = directory.appendingPathComponent("host-key"), admin = directory.appendingPathComponent("admin-key")
        let empty = directory.appendingPathComponent("empty"), short = directory.appendingPathComponent("short")
        try Data("host-key-from-a-file-01\n".utf8).write(to: host)
        try Data("admin-key-from-a-file-02\r\n".utf8).write(to: admin)
        try Data("\n".utf8).write(to: empty)
        try Data("tiny\n".utf8).write(to: short)
        let c = try configuration(["--host-key-file", host.path], environment: ["TOMBOLA_ADMIN_KEY_FILE": admin.path])
        #expect(c.hostKey == "host-key-from-a-file-01" && c.adminKey == "admin-key-from-a-file-02")
        #expect(c.hostKeyFile == host.path && c.adminKeyFile == admin.path)
        #expect(throws: ServerOptions.UsageError(message: "--admin-key-file: '\(empty.path)' is empty")) {
            try ServerOptions.parse(["--admin-key-file", empty.path])
        }
        #expect(throws: ServerOptions.UsageError(message: "--host-key-file '\(short.path)': the host key must be at least 16 characters, "
                                                 + "this one has 4 (make one with: head -c 20 /dev/urandom | base32)")) {
            try ServerOptions.parse([], environment: ["TOMBOLA_HOST_KEY_FILE": short.path])
        }
    }

    @Test func operationsOptionsSetTheirFields() throws {
        let c = try configuration(["--access-log-format", "combined", "--drain-seconds", "20", "--metrics-listen", "[::1]:9090"])
        #expect(c.accessLog && c.accessLogFormat == .combined && c.drainSeconds == 20)
        #expect(c.metricsListen?.host == "::1" && c.metricsListen?.port == 9090)
        let d = try configuration([], environment: ["TOMBOLA_METRICS_LISTEN": "127.0.0.1:0", "TOMBOLA_ACCESS_LOG_FORMAT": "text"])
        #expect(d.metricsListen?.host == "127.0.0.1" && d.metricsListen?.port == 0 && d.accessLog && d.accessLogFormat == .text)
        let defaults = try configuration([])
        #expect(defaults.metricsListen == nil && defaults.drainSeconds == 0 && defaults.accessLogFormat == .text)
    }

    @Test func combinedLogTimeIsUTCAndPathsLoseTheirQuery() {
        #expect(AccessLog.combinedTime(0) == "01/Jan/1970:00:00:00 +0000")
        #expect(AccessLog.combinedTime(1_796_272_245) == "03/Dec/2026:04:30:45 +0000")
        #expect(AccessLog.withoutQuery("/draw/A?key=x#k") == "/draw/A")
        #expect(AccessLog.withoutQuery("https://e.org/p#key=x") == "https://e.org/p")
        #expect(AccessLog.withoutQuery("/plain") == "/plain")
    }

    @Test func histogramsRenderCumulativeBucketsSumAndCount() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("h_seconds", help: "Hs.", bounds: [0.1, 1])
        for value in [0.05, 0.1, 0.5, 3] { histogram.observe(value) }
        histogram.observe(.milliseconds(20))
        #expect(registry.render() == """
        # HELP h_seconds Hs.
        # TYPE h_seconds histogram
        h_seconds_bucket{le="0.1"} 3
        h_seconds_bucket{le="1.0"} 4
        h_seconds_bucket{le="+Inf"} 5
        h_seconds_sum 3.67
        h_seconds_count 5

        """)
    }

    @Test func badEnvironmentIsExplained() {
        #expect(throws: ServerOptions.UsageError(message: "TOMBOLA_LOOPS must be a whole number from 1 to 256, not 'many'")) {
            try ServerOptions.parse([], environment: ["TOMBOLA_LOOPS": "many"])
        }
    }

    @Test func helpListsEveryOptionWithItsVariable() throws {
        guard case .help = try ServerOptions.parse(["--port", "1", "--help"]) else { Issue.record("no help"); return }
        for option in ServerOptions.options {
            #expect(ServerOptions.usage.contains("--\(option.name)"))
            #expect(ServerOptions.usage.contains(option.environment))
        }
    }

    @Test func bannerShowsLANAddressesAndKeepsTheHostKeyInTheFragment() {
        var c = AppConfiguration()
        c.defaultDrawCode = "main"
        c.hostKey = "s3cret"
        let text = Banner.text(configuration: c, port: 8080, lanAddresses: ["192.168.1.20", "10.0.0.5"])
        #expect(text.contains("http://192.168.1.20:8080/calc"))
        #expect(text.contains("http://192.168.1.20:8080/screen/main"))
        #expect(text.contains("http://192.168.1.20:8080/draw/main#key=s3cret"))
        #expect(text.contains("Screen with controls (keep this secret): http://192.168.1.20:8080/screen/main#key=s3cret"))
        #expect(text.contains("http://10.0.0.5:8080/"))
        #expect(text.contains("http://localhost:8080/"))
        let bound = Banner.text(configuration: AppConfiguration(host: "127.0.0.1"), port: 1, lanAddresses: ["192.168.1.20"])
        #expect(!bound.contains("192.168.1.20"))
    }

    @Test func trustedProxiesAreRepeatableAndComeFromTheEnvironmentToo() throws {
        let c = try configuration(["--trusted-proxy", "127.0.0.1", "--trusted-proxy=fd00::/8"])
        #expect(c.trustedProxies.networks.map(\.description) == ["127.0.0.1/32", "fd00::/8"])
        let e = try configuration([], environment: ["TOMBOLA_TRUSTED_PROXY": "10.0.0.0/8, ::1"])
        #expect(e.trustedProxies.networks.map(\.description) == ["10.0.0.0/8", "::1/128"])
        #expect(try configuration([]).trustedProxies.isEmpty)
        #expect(throws: ServerOptions.UsageError.self) {
            try ServerOptions.parse([], environment: ["TOMBOLA_TRUSTED_PROXY": "10.0.0.0/8,nonsense"])
        }
    }

    @Test func logFormatDefaultsToTextAndTakesJSON() throws {
        #expect(try configuration([]).logFormat == .text)
        #expect(try configuration(["--log-format", "json"]).logFormat == .json)
        #expect(try configuration([], environment: ["TOMBOLA_LOG_FORMAT": "json"]).logFormat == .json)
        #expect(ServerOptions.usage.contains("--trusted-proxy CIDR"))
        #expect(ServerOptions.usage.contains("[TOMBOLA_LOG_FORMAT]"))
    }

    @Test func beaconFlagsAndVariablesSetTheRelaysAndTheChain() throws {
        let plain = try configuration([])
        #expect(plain.beacon.relays == ["https://api.drand.sh", "https://drand.cloudflare.com"] && !plain.beacon.allowHTTP)
        #expect(plain.beacon.chain.hash == "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971")
        let hash = String(repeating: "ab", count: 32), key = String(repeating: "cd", count: 96)
        let c = try configuration(["--beacon-relay", "http://127.0.0.1:9", "--beacon-relay", "https://relay.example", "--beacon-allow-http",
                                   "--beacon-chain", hash, "--beacon-public-key", key, "--beacon-genesis", "1700000000", "--beacon-period", "3"])
        #expect(c.beacon.relays == ["http://127.0.0.1:9", "https://relay.example"] && c.beacon.allowHTTP)
        #expect(c.beacon.chain == DrawEngine.BeaconChain(hash: hash, publicKey: key, genesis: 1_700_000_000, period: 3))
        let e = try configuration([], environment: ["TOMBOLA_BEACON_RELAY": "https://a.example,https://b.example"])
        #expect(e.beacon.relays == ["https://a.example", "https://b.example"])
        #expect(throws: ServerOptions.UsageError.self) { _ = try configuration(["--beacon-relay", "http://127.0.0.1:9"]) }
        #expect(throws: ServerOptions.UsageError.self) { _ = try configuration(["--beacon-relay", "ftp://x"]) }
        #expect(throws: ServerOptions.UsageError.self) { _ = try configuration(["--beacon-chain", hash]) }
        // Pages fetch a sealed round's value themselves: CSP connect-src names the public relays
        // and the configured ones, as origins, once each.
        let publicOrigins = ["https://api.drand.sh", "https://api2.drand.sh", "https://api3.drand.sh", "https://drand.cloudflare.com"]
        #expect(plain.server.connectSources == publicOrigins)
        #expect(c.server.connectSources == publicOrigins + ["http://127.0.0.1:9", "https://relay.example"])
        #expect(ServerOptions.origins(of: ["https://Relay.Example:8443/drand/", "https://relay.example:8443", "https://x'y.example"])
                == ["https://relay.example:8443"])
        #expect(throws: ServerOptions.UsageError.self) {
            _ = try configuration(["--beacon-chain", "XY", "--beacon-public-key", key, "--beacon-genesis", "1", "--beacon-period", "3"])
        }
    }
}

@Suite struct MetricsRegistryTests {
    @Test func rendersPrometheusTextWithHelpTypeAndLabels() {
        let registry = MetricsRegistry()
        registry.counter("x_total", help: "Xs.", labels: [("kind", "a\"b")]).increment(by: 2)
        let gauge = registry.gauge("y", help: "Ys.")
        gauge.increment(by: 5)
        gauge.decrement()
        registry.gauge("z", help: "Zs.") { 1.5 }
        #expect(registry.render() == """
        # HELP x_total Xs.
        # TYPE x_total counter
        x_total{kind="a\\"b"} 2
        # HELP y Ys.
        # TYPE y gauge
        y 4
        # HELP z Zs.
        # TYPE z gauge
        z 1.5

        """)
    }

    @Test func registeringTwiceReturnsTheSameMetric() {
        let registry = MetricsRegistry()
        registry.counter("c", help: "C.").increment()
        registry.counter("c", help: "C.").increment()
        #expect(registry.counter("c", help: "C.").value == 2)
    }
}
