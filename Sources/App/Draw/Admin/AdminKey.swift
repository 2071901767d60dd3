import Foundation
import Posix
import Storage

/// The server's admin key (creates, lists, archives and deletes draws). Kept in the data
/// directory as its SHA-256 digest only, like host keys: generated at the first start and
/// printed once, then kept across restarts; replaced by `--admin-key` / `--admin-key-file` or
/// by `tombola admin-link`, which a running server takes within a second (`HostKeyWatch`).
public enum AdminKey {
    static let name = "admin"

    /// What start-up settled on: the digest to check keys against, and the key itself only
    /// when this start generated it (the one time it is printed).
    struct Resolved: Sendable {
        let hash: String
        let generated: String?
    }

    /// Storage thread: the given key (stored when it differs), else the stored digest, else a
    /// fresh key (stored).
    static func resolve(given: String?, in database: Database) throws -> Resolved {
        let stored = try database.serverKeyHash(name)
        if let given {
            let hash = DrawKeys.hash(given)
            if stored != hash { try database.storeServerKeyHash(name, hash: hash, at: now) }
            return Resolved(hash: hash, generated: nil)
        }
        if let stored { return Resolved(hash: stored, generated: nil) }
        let key = DrawKeys.newSecret()
        try database.storeServerKeyHash(name, hash: DrawKeys.hash(key), at: now)
        return Resolved(hash: DrawKeys.hash(key), generated: key)
    }

    /// `tombola admin-link`: stores a fresh admin key for the server whose data is in
    /// `dataDirectory` and returns it. The old key stops working.
    public static func issue(dataDirectory: String) throws(HostLink.Failure) -> String {
        let path = (dataDirectory as NSString).appendingPathComponent(StorageQueue.fileName)
        guard FileManager.default.fileExists(atPath: path) else { throw .noData(dataDirectory) }
        let key = DrawKeys.newSecret()
        do {
            let database = try Database(path: path)
            try database.storeServerKeyHash(name, hash: DrawKeys.hash(key), at: now)
        } catch {
            throw .storage("\(error)")
        }
        return key
    }

    /// The landing page's admin view with the key in the fragment (never sent to the server).
    public static func link(base: String, key: String) -> String {
        "\(base)/#admin=\(key)"
    }

    private static var now: Double { Double(WallClock.unixMilliseconds()) / 1000 }
}
