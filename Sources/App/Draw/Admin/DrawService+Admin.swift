import DrawRoomCore
import JSON
import Server
import Storage

/// The admin's operations on stored draws (single-box; cluster mode answers `not_supported`):
/// list, archive / un-archive, delete. Each change is written with its audit entry
/// (actor `admin`) in one transaction.
extension DrawService {
    enum AdminFailure: Error {
        /// The protocol's code (`unknown_draw`, `wrong_phase`, `not_archived`, `default_draw`, `storage_failed`…).
        case refused(String)
    }

    /// Whether stored draw `code` is archived (single-box).
    func isArchived(_ code: String) -> Bool {
        known.withLock { $0.archived.contains(code) }
    }

    /// One page of draws, newest first; completion runs on the storage thread.
    func listDraws(limit: Int, after: String?, completion: @escaping @Sendable (Result<[DrawListing], any Error>) -> Void) {
        storage.async({ database in try database.listDraws(limit: limit, after: after) }, completion: completion)
    }

    /// Archives (read-only, still verifiable and exportable) or un-archives draw `code`. The
    /// room turns read-only first (refused while a round rolls), then the mark is stored; a
    /// failed write turns it back.
    func setArchived(_ archived: Bool, code: String, completion: @escaping @Sendable (Result<String, AdminFailure>) -> Void) {
        guard let room = localRoom(code) else { return completion(.failure(.refused("unknown_draw"))) }
        let code = room.code
        let audit = self.audit
        let known = self.known
        room.setArchived(archived) { [storage] result in
            if case .failure(let failure) = result { return completion(.failure(.refused(failure.code))) }
            storage.async({ database in
                try database.transaction {
                    try database.setArchived(code: code, at: archived ? Double(DrawPersistence.now) / 1000 : nil)
                    try DrawPersistence.append([], code: code, audit: (audit, AuditEntry(actor: "admin", action: archived ? "archive" : "unarchive")),
                                               in: database)
                }
            }, completion: { result in
                switch result {
                case .success:
                    known.withLock { if archived { $0.archived.insert(code) } else { $0.archived.remove(code) } }
                    completion(.success(code))
                case .failure(let error):
                    audit.forget(code)
                    room.setArchived(!archived) { _ in }
                    completion(.failure(.refused(DrawPersistence.errorCode(error))))
                }
            })
        }
    }

    /// Deletes archived draw `code`: its pages are closed, its records, entrants and branding
    /// removed; its row stays as a tombstone (the code is never reused) with its audit chain,
    /// which ends with the `delete` entry. The default draw cannot be deleted, nor a draw whose
    /// winners another draw excludes (`draw_linked`).
    func deleteDraw(code typed: String, completion: @escaping @Sendable (Result<String, AdminFailure>) -> Void) {
        let taken: Result<(code: String, hash: String, room: DrawRoom?), AdminFailure> = known.withLock { known in
            guard let code = [typed, typed.uppercased()].first(where: { known.stored[$0] != nil }),
                  let hash = known.stored[code] else {
                return .failure(.refused("unknown_draw"))
            }
            guard code != defaultDraw.code else { return .failure(.refused("default_draw")) }
            guard known.archived.contains(code) else { return .failure(.refused("not_archived")) }
            // Gone from the index at once: no new page or request reaches it while it is deleted.
            let room = known.rooms.removeValue(forKey: code)
            known.lastUsed[code] = nil
            known.stored[code] = nil
            known.archived.remove(code)
            known.deleted.insert(code)
            return .success((code, hash, room))
        }
        guard case .success(let target) = taken else {
            if case .failure(let failure) = taken { completion(.failure(failure)) }
            return
        }
        target.room?.evict()
        entryProofs.forget(target.code)
        let audit = self.audit
        storage.async({ database in
            // A draw that excludes this one's winners would silently stop excluding them.
            let linking = try database.drawSettingsMentioning(target.code).filter { candidate in
                let links = (try? JSONValue.parse(Array(candidate.configJSON.utf8)))?["excludeWinnersOf"]?.arrayValue ?? []
                return links.contains { $0.stringValue == target.code }
            }
            if !linking.isEmpty { throw AdminFailure.refused("draw_linked") }
            try database.transaction {
                try database.deleteDraw(code: target.code, at: Double(DrawPersistence.now) / 1000)
                try DrawPersistence.append([], code: target.code, audit: (audit, AuditEntry(actor: "admin", action: "delete")), in: database)
            }
        }, completion: { [known] result in
            if case .failure(let error) = result {
                audit.forget(target.code)
                let code = (error as? AdminFailure).map { if case .refused(let code) = $0 { code } else { "" } }
                // Nothing was deleted: the draw is back (archived), read again on its next use.
                known.withLock { known in
                    known.stored[target.code] = target.hash
                    known.deleted.remove(target.code)
                    known.archived.insert(target.code)
                }
                completion(.failure(.refused(code ?? DrawPersistence.errorCode(error))))
                return
            }
            known.withLock { _ = $0.dormant.removeValue(forKey: target.code) }
            completion(.success(target.code))
        })
    }
}
