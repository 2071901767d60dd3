import DrawRoomCore
import DrawEngine
import Foundation
import Storage

/// `tombola host-link CODE`: the way back into a draw whose host link was lost. Issues a new
/// host key on the machine that holds the data (access to the data folder is the authority),
/// stores only its hash, invalidates the old key and writes an audit entry without the key.
/// A running server on the same data notices within a second (`HostKeyWatch`).
public enum HostLink {
    public enum Failure: Error, CustomStringConvertible {
        case noData(String)
        case unknownDraw(String)
        case storage(String)
        /// Cluster mode: Redis has no such draw.
        case notInCluster(code: String, redis: String)

        public var description: String {
            switch self {
            case .noData(let directory): "no draws in \(directory) (wrong --data?)"
            case .unknownDraw(let code): "there is no draw \(code) in this data folder"
            case .storage(let detail): "cannot store the new key: \(detail)"
            case .notInCluster(let code, let redis): "there is no draw \(code) in the cluster on \(redis)"
            }
        }
    }

    /// Stores a fresh host key for draw `code` (as typed, or upper-cased) in `dataDirectory`;
    /// returns the draw's code and the new key.
    public static func issue(code: String, dataDirectory: String) throws(Failure) -> (code: String, key: String) {
        let path = (dataDirectory as NSString).appendingPathComponent(StorageQueue.fileName)
        guard FileManager.default.fileExists(atPath: path) else { throw .noData(dataDirectory) }
        let key = DrawKeys.newSecret()
        let stored: String
        do {
            let database = try Database(path: path)
            guard let row = try database.loadDraw(code: code) ?? database.loadDraw(code: code.uppercased()) else {
                throw Failure.unknownDraw(code)
            }
            stored = row.code
            try database.transaction {
                try database.updateHostKeyHash(code: row.code, hash: DrawKeys.hash(key))
                try DrawPersistence.append([], code: row.code, audit: (DrawAuditLog(), AuditEntry(
                    actor: "system", action: "host_key_reset", detail: .object(["via": .string("host-link")]))),
                    in: database)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .storage("\(error)")
        }
        return (stored, key)
    }
}
