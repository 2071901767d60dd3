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
        #expect(c.publicDirectory == "./Public")
        #expect(c.tickHz == 20)
        #expect(!c.accessLog && !c.echoEndpoint)
        #expect(c.ioUring)
        #expect(c.headerTimeout == .seconds(10) && c.idleTimeout == .seconds(60))
    }

    @Test func everyFlagSetsItsField() throws {
        let c = try configuration([
            "--port", "9000", "--host", "127.0.0.1", "--data", "/d", "--public=/p", "--default-draw", "main",
            "--host-key", "hk", "--admin-key", "ak", "--tick-hz", "30", "--access-log", "--echo-endpoint",
            "--allow-origin", "https://a.example", "--allow-origin", "https://b.example", "--max-connections", "5", "--loops", "3",
            "--no-io-uring", "--header-timeout", "3", "--idle-timeout=7",
        ])
        #expect(c.port == 9000 && c.host == "127.0.0.1" && c.dataDirectory == "/d" && c.publicDirectory == "/p")
        #expect(c.defaultDrawCode == "main" && c.hostKey == "hk" && c.adminKey == "ak" && c.tickHz == 30)
        #expect(c.accessLog && c.echoEndpoint)
        #expect(c.allowedOrigins == ["https://a.example", "https://b.example"])
        #expect(c.maxConnections == 5 && c.loopCount == 3)
        #expect(!c.ioUring)
        #expect(c.headerTimeout == .seconds(3) && c.idleTimeout == .seconds(7))
    }

    @Test func environmentSetsValuesAndFlagsWin() throws {
        let environment = ["TOMBOLA_PORT": "7000", "TOMBOLA_ACCESS_LOG": "yes", "TOMBOLA_ALLOW_ORIGIN": "https://a, https://b",
                           "TOMBOLA_ADMIN_KEY": "env-key"]
        let c = try configuration(["--port", "7001"], environment: environment)
        #expect(c.port == 7001)
        #expect(c.accessLog)
        #expect(c.allowedOrigins == ["https://a", "https://b"])
        #expect(c.adminKey == "env-key")
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
    ])
    func badUsageIsExplained(arguments: [String], message: String) {
        #expect(throws: ServerOptions.UsageError(message: message)) { try ServerOptions.parse(arguments) }
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
