#if canImport(Glibc)
import Glibc
#endif
import App
import DrawEngine

/// `tombola rotate-signing-key [--data DIR]`: replaces the record-signing key of a single box
/// (`signing.key`) by a new one, the old key signing the hand-over first into
/// `signing-rotations.json` (docs/FAIRNESS.md §17). Run it with the server stopped: the next
/// start signs with the new key and every export carries the hand-over, so records signed by the
/// old key still verify. A cluster's key is derived from the cluster key (docs/CLUSTER.md).
/// Exit codes: 0 done, 1 failed, 2 bad usage.
enum RotateSigningKeyCommand {
    static let usage = "usage: tombola rotate-signing-key [--data DIR]   (with the server stopped)"

    static func run(_ arguments: [String]) -> Int32 {
        let configuration: AppConfiguration
        switch ServerCommand.subcommandOptions(arguments, command: "rotate-signing-key", usage: usage) {
        case .run(let parsed): configuration = parsed
        case .exit(let status): return status
        }
        do {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let (old, new) = try ServerSigning.rotate(dataDirectory: configuration.dataDirectory,
                                                      at: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
            ServerCommand.emit("""
                Signing key rotated; the old key signed the hand-over (\(ServerSigning.rotationsFileName)).
                  Old: \(RecordSigning.grouped(old.fingerprint))
                  New: \(RecordSigning.grouped(new.fingerprint))
                Start the server again to sign with the new key.

                """, to: 1)
            return 0
        } catch {
            ServerCommand.emit("tombola rotate-signing-key: \(error)\n", to: 2)
            return 1
        }
    }
}
