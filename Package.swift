// swift-tools-version:6.0
import PackageDescription

/// Dependencies point inward: engines import only their C libraries, JSON and Crypto; the draw
/// room's core (DrawRoomCore) only DrawEngine, JSON and Crypto (no I/O, clock, locks or frames);
/// HTTPCore and WebSocketCore never touch sockets; only Posix touches sockets and epoll; only
/// Storage touches SQLite; only RedisStore talks to Redis; only Crypto calls libcrypto; the cluster
/// node's rules (ClusterCore) sit on DrawRoomCore and RedisStore's values, with no I/O or clock; only
/// App wires things together (its draw shells sit on DrawRoomCore, ClusterCore, Server, Storage and
/// RedisStore).
/// Every `import` of a target is declared here, so this is the real graph. Linux only (epoll,
/// io_uring, eventfd).
/// The fan-out path (sockets, the send ring, WebSocket frames, the server's sessions) in release
/// builds without the runtime's dynamic exclusivity checks: `swift_beginAccess`/`endAccess` and their
/// thread-local access set were 46 % of the server's instructions per delivered tick frame
/// (callgrind, issue #46; BENCHMARKS.md). Debug builds, the tests and the sanitizer runs keep
/// every check, so an overlapping access still traps where the tests run.
let fanOutPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Tombola",
    products: [
        .executable(name: "tombola", targets: ["tombola"]),
        .executable(name: "tombola-bench", targets: ["tombola-bench"]),
    ],
    targets: [
        // C shims and system libraries, one per C library.
        .target(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CGMP", path: "Sources/CGMP", providers: [.apt(["libgmp-dev"])]),
        .systemLibrary(name: "CMPFR", path: "Sources/CMPFR", providers: [.apt(["libmpfr-dev"])]),
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // No pkgConfig: hiredis.pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM drops with a
        // "prohibited flag" warning on every build; the shim includes <hiredis/…> from /usr/include.
        .systemLibrary(name: "CHiredis", path: "Sources/CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Public/ and the build's version and commit, generated into Embedded at build time by
        // the Embed plugin (its tool: tombola-embed), so the one binary is the whole server.
        .executableTarget(name: "tombola-embed"),
        .plugin(name: "Embed", capability: .buildTool(), dependencies: ["tombola-embed"]),
        .target(name: "Embedded", plugins: ["Embed"]),

        // Pure modules.
        .target(name: "Locking"),
        .target(name: "JSON"),
        .target(name: "Crypto", dependencies: ["CCrypto"]),
        .target(name: "Compression", dependencies: ["CZlib"]),
        // `.xlsx` downloads: a one-sheet workbook in a ZIP made with Compression.
        .target(name: "Spreadsheet", dependencies: ["Compression"]),
        .target(name: "CalculatorEngine", dependencies: ["CGMP", "CMPFR"]),
        // BLS12-381 signature checks (drand's scheme) in pure Swift: fields, curves, hash to G1, pairing.
        .target(name: "BLS12381", dependencies: ["Crypto"]),
        .target(name: "DrawEngine", dependencies: ["JSON", "Crypto"]),
        // One draw room's rules as a state machine (events in with the time, actions out), its
        // check-in sub-machine, board paging and `DrawWire` (the page protocol's JSON): no I/O,
        // no clock, no locks, no frames; `App`'s `DrawRoom` is the shell that performs its actions.
        .target(name: "DrawRoomCore", dependencies: ["DrawEngine", "JSON", "Crypto"]),
        .target(name: "HTTPCore"),
        .target(name: "WebSocketCore", dependencies: ["Crypto", "Compression", "Locking"], swiftSettings: fanOutPath),

        // I/O.
        .target(name: "Posix", dependencies: ["CLinux", "Locking"], swiftSettings: fanOutPath),
        .target(name: "Storage", dependencies: ["CSQLite"]),
        .target(name: "WebSocketClient", dependencies: ["Posix", "WebSocketCore"]),

        // A generic HTTP/WebSocket server: knows no draw or calculator.
        .target(name: "Server", dependencies: [
            "CLinux", "Crypto", "Locking", "Posix", "HTTPCore", "WebSocketCore", "Compression", "JSON", "CSystemd",
        ], swiftSettings: fanOutPath),
        // A Redis client, driver and the cluster's stores (leases, round logs, Pub/Sub): knows Redis, not the room.
        .target(name: "RedisStore", dependencies: ["CHiredis", "Posix"]),
        // One draw's cluster role on one instance as a state machine (`ClusterNodeState`: events in
        // with the time, actions out), the takeover's resume, the fan-out wire and the seed's seal:
        // no I/O, no clock, no locks (of RedisStore only its values: leases, cursors, endpoints; of
        // WebSocketCore only `OutboundStream`); `App`'s `ClusterDrawNode` is the shell that performs
        // its actions.
        .target(name: "ClusterCore", dependencies: ["DrawRoomCore", "RedisStore", "DrawEngine", "JSON", "Crypto", "WebSocketCore"]),
        // Outgoing webhooks: signed deliveries with retries, chat formats, public targets only (libcurl).
        .target(name: "Webhooks", dependencies: ["CCurl", "Crypto", "JSON", "Locking", "Posix"]),
        // drand rounds over HTTPS (libcurl), on threads of their own.
        .target(name: "Beacon", dependencies: ["CCurl", "Crypto", "JSON", "DrawEngine", "Posix", "BLS12381"]),

        // Wiring and executables.
        .target(name: "App", dependencies: [
            "Server", "Locking", "Posix", "HTTPCore", "WebSocketCore", "Compression", "Storage", "JSON", "Crypto",
            "CalculatorEngine", "DrawEngine", "DrawRoomCore", "ClusterCore", "CQREncode", "RedisStore", "Embedded", "Beacon",
            "Spreadsheet", "Webhooks",
        ]),
        .executableTarget(name: "tombola", dependencies: [
            "App", "Crypto", "Server", "CalculatorEngine", "DrawEngine", "Storage", "JSON", "Embedded", "Beacon", "BLS12381",
        ]),
        .executableTarget(name: "tombola-bench", dependencies: ["WebSocketClient", "Posix", "WebSocketCore", "CLinux", "Compression", "Locking", "DrawEngine", "BLS12381"]),

        // Tests mirror Sources.
        .testTarget(name: "EmbeddedTests", dependencies: ["Embedded"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "CompressionTests", dependencies: ["Compression"]),
        .testTarget(name: "SpreadsheetTests", dependencies: ["Spreadsheet", "Compression"]),
        .testTarget(name: "CalculatorEngineTests", dependencies: ["CalculatorEngine"]),
        .testTarget(name: "DrawEngineTests", dependencies: ["DrawEngine", "JSON"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore"]),
        .testTarget(name: "WebSocketCoreTests", dependencies: ["WebSocketCore", "Compression"]),
        .testTarget(name: "WebSocketClientTests", dependencies: ["WebSocketClient", "WebSocketCore"]),
        .testTarget(name: "PosixTests", dependencies: ["Posix", "Locking"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Locking"]),
        .testTarget(name: "RedisStoreTests", dependencies: ["RedisStore", "CHiredis", "Posix", "Locking"]),
        .testTarget(name: "WebhooksTests", dependencies: ["Webhooks", "TestSupport", "Server", "HTTPCore", "JSON", "Locking"]),
        .testTarget(name: "BeaconTests", dependencies: ["Beacon", "DrawEngine", "BLS12381"]),
        .testTarget(name: "BLS12381Tests", dependencies: ["BLS12381"]),
        .testTarget(name: "BenchTests", dependencies: ["tombola-bench", "App", "Server"]),
        // Helpers the Server and App tests share (a server on port 0, a raw HTTP reader, files).
        .target(name: "TestSupport", dependencies: ["Server", "HTTPCore", "Posix", "WebSocketClient", "WebSocketCore"],
                path: "Tests/TestSupport"),
        .testTarget(name: "ServerTests", dependencies: [
            "Server", "TestSupport", "HTTPCore", "Posix", "WebSocketClient", "WebSocketCore", "Locking",
        ]),
        // The room core's test harness (events in with a manual clock, actions out), shared by
        // the room core's tests, the cluster core's (the cluster node drives the same room) and App's.
        .target(name: "RoomTestSupport", dependencies: ["DrawRoomCore", "DrawEngine", "JSON"], path: "Tests/RoomTestSupport"),
        .testTarget(name: "DrawRoomCoreTests", dependencies: ["DrawRoomCore", "DrawEngine", "JSON", "RoomTestSupport"]),
        .testTarget(name: "ClusterCoreTests", dependencies: [
            "ClusterCore", "DrawRoomCore", "RedisStore", "DrawEngine", "JSON", "WebSocketCore", "RoomTestSupport",
        ]),
        .testTarget(name: "AppTests", dependencies: [
            "App", "Server", "TestSupport", "RoomTestSupport", "WebSocketClient", "Posix", "HTTPCore", "WebSocketCore", "CalculatorEngine", "DrawEngine", "DrawRoomCore", "JSON",
            "Storage", "Locking", "Webhooks",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
