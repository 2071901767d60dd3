#if canImport(Glibc)
import Glibc
#endif
import App
import DrawEngine

/// `tombola rotate-signing-key [--data DIR]`: replaces the record-signing key of a single box
/// (`signing.key`) by a new one, the old key signing the hand-over first into
/// `signing-rotations.json` (docs/FAIRNESS.md §17). Run it with the server stopped: the next
/// start signs with the new key and every export carries the hand-over, so records signed by the
/// old key still verify. In cluster mode (`--redis URL --cluster-key OLD --new-cluster-key NEW`)
/// the key is derived from the cluster key: the old cluster key's signing key signs the new one's
/// into Redis (`tombola:signing-rotations`); restart every instance with NEW (docs/CLUSTER.md).
/// Exit codes: 0 done, 1 failed, 2 bad usage.
enum RotateSigningKeyCommand {
    static let usage = "usage: tombola rotate-signing-key [--data DIR | --redis URL --cluster-key OLD --new-cluster-key NEW]"
        + "   (a single box: with the server stopped)"

    static func run(_ arguments: [String]) -> Int32 {
        var arguments = arguments
        var newKeyPath: String?
        if let flag = arguments.firstIndex(of: "--new-cluster-key") {
            guard flag + 1 < arguments.count else {
                ServerCommand.emit("tombola rotate-signing-key: --new-cluster-key needs a value (FILE)\n\(usage)\n", to: 2)
                return 2
            }
            newKeyPath = arguments[flag + 1]
            arguments.removeSubrange(flag...(flag + 1))
        }
        let configuration: AppConfiguration
        switch ServerCommand.subcommandOptions(arguments, command: "rotate-signing-key", usage: usage) {
        case .run(let parsed): configuration = parsed
        case .exit(let status): return status
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let at = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        do {
            let old: RecordSigner, new: RecordSigner, kept: String
            if let cluster = configuration.cluster {
                guard let newKeyPath else {
                    ServerCommand.emit("tombola rotate-signing-key: cluster mode needs --new-cluster-key NEW (make one with:"
                                       + " head -c 32 /dev/urandom > new-cluster.key)\n\(usage)\n", to: 2)
                    return 2
                }
                guard let newKey = ClusterSigningRotations.readKeyFile(newKeyPath) else {
                    ServerCommand.emit("tombola rotate-signing-key: --new-cluster-key: '\(newKeyPath)' must hold exactly 32 bytes,"
                                       + " or 64 hex digits\n", to: 2)
                    return 2
                }
                (old, new) = try ClusterSigningRotations.rotate(cluster: cluster, newClusterKey: newKey, at: at)
                kept = "\(ClusterSigningRotations.key) in Redis"
            } else {
                guard newKeyPath == nil else {
                    ServerCommand.emit("tombola rotate-signing-key: --new-cluster-key needs --redis\n\(usage)\n", to: 2)
                    return 2
                }
                (old, new) = try ServerSigning.rotate(dataDirectory: configuration.dataDirectory, at: at)
                kept = ServerSigning.rotationsFileName
            }
            ServerCommand.emit("""
                Signing key rotated; the old key signed the hand-over (\(kept)).
                  Old: \(RecordSigning.grouped(old.fingerprint))
                  New: \(RecordSigning.grouped(new.fingerprint))
                \(configuration.cluster == nil ? "Start the server again to sign with the new key." : "Restart every instance with --cluster-key NEW to sign with the new key.")

                """, to: 1)
            return 0
        } catch {
            ServerCommand.emit("tombola rotate-signing-key: \(error)\n", to: 2)
            return 1
        }
    }
}
