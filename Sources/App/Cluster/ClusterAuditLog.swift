import DrawRoomCore
import RedisStore
import JSON
import Posix

/// The audit log in cluster mode (docs/CLUSTER.md, *Audit log*): the entries single-box keeps
/// in SQLite (`DrawAuditLog`: start, stop, clear, configure, void, host_key_reset), kept in
/// the draw's stream `{d:CODE}:audit` with the same body and the same SHA-256 chain. The
/// owner writes each after the records of its command are stored (a separate script, not
/// atomic with them: an entry is lost, never wrong, if Redis fails in between), one at a time
/// per draw, in order, fenced by its lease.
///
/// `@unchecked Sendable`: immutable properties plus state used only on the cluster loop.
final class ClusterAuditLog: @unchecked Sendable {
    let stream: AuditStream
    /// Loop only: each draw's last entry as this instance wrote or read it.
    private var tails: [String: AuditTail] = [:]
    private var queues: [String: [(entry: AuditEntry, at: Int64, lease: OwnerLease)]] = [:]
    private var busy: Set<String> = []

    init(client: RedisClient) {
        stream = AuditStream(client: client)
    }

    /// Queues `entry` for draw `code`, written with `lease`'s token. Loop only.
    func record(_ entry: AuditEntry, code: String, lease: OwnerLease) {
        queues[code, default: []].append((entry, DrawPersistence.now, lease))
        next(code)
    }

    private func next(_ code: String) {
        guard !busy.contains(code), var queue = queues[code], !queue.isEmpty else { return }
        let item = queue.removeFirst()
        queues[code] = queue.isEmpty ? nil : queue
        busy.insert(code)
        Self.write(item.entry, code: code, at: item.at, lease: item.lease, after: tails[code], on: stream) { [self] result in
            busy.remove(code)
            switch result {
            case .success(let tail):
                tails[code] = tail
            case .failure(let error):
                tails[code] = nil
                DrawLog.error("cluster: audit entry \(item.entry.action) of draw \(code) not kept: \(error)", code: code)
            }
            next(code)
        }
    }

    /// The entry's body as single-box hashes it (`DrawAuditLog`), after `tail`.
    static func body(_ entry: AuditEntry, code: String, at: Int64, after tail: AuditTail) -> (json: String, hash: String) {
        let body: JSONValue = .object([
            "draw": .string(code), "index": .int(Int64(tail.index + 1)), "at": .int(at), "actor": .string(entry.actor),
            "action": .string(entry.action), "detail": entry.detail, "prev": .string(tail.hash),
        ])
        let json = body.canonicalString
        return (json, DrawKeys.sha256Hex(Array(json.utf8)))
    }

    /// Appends `entry` after `tail` (read first when nil), building it again on the real tail
    /// when another writer came first (a few times). `lease` nil: a system write outside the
    /// owner (`tombola host-link`). Loop only (the stream's client's).
    static func write(_ entry: AuditEntry, code: String, at: Int64, lease: OwnerLease?, after tail: AuditTail?, on stream: AuditStream,
                      attempts: Int = 4, _ completion: @escaping (Result<AuditTail, AuditAppendError>) -> Void) {
        guard let tail else {
            return stream.tail(draw: code) { result in
                switch result {
                case .success(let read): write(entry, code: code, at: at, lease: lease, after: read, on: stream, attempts: attempts, completion)
                case .failure(let error): completion(.failure(.store(error)))
                }
            }
        }
        let (json, hash) = body(entry, code: code, at: at, after: tail)
        stream.append(draw: code, index: tail.index + 1, prev: tail.hash, hash: hash, json: json, lease: lease) { result in
            switch result {
            case .success:
                completion(.success(AuditTail(index: tail.index + 1, hash: hash)))
            case .failure(.chain(let real)) where attempts > 1:
                write(entry, code: code, at: at, lease: lease, after: real, on: stream, attempts: attempts - 1, completion)
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }
}
