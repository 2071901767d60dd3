import DrawRoomCore
import ClusterCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// Check-in (issue 14) in cluster mode (docs/CLUSTER.md, *Check-in*): the owner's room keeps
/// the book, as single-box; its writes go to Redis (`CheckinStore`, fenced, with the settings
/// they change); a new owner loads the book before it opens the room; followers forward joins,
/// reads and host commands to the owner and relay its answers; followers report which devices
/// their pages belong to, so "is the winner's phone here" covers every instance.
extension ClusterDrawNode: CheckinChannel {
    // MARK: Routes (any thread)

    func checkinJoin(_ body: JSONValue, device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        loop.execute { [self] in
            askOwner(.join(body: body, device: device), local: { $0.checkinJoin(body, device: device, completion: completion) }, completion: completion)
        }
    }

    func checkinClaim(device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        loop.execute { [self] in
            askOwner(.claim(device: device), local: { $0.claim(device: device, completion: completion) }, completion: completion)
        }
    }

    func checkinRead(_ query: CheckinQuery, completion: @escaping @Sendable (Result<JSONValue, CommandFailure>) -> Void) {
        loop.execute { [self] in
            // The whole book (CSV, export) on a follower: read from Redis, where every acknowledged
            // entrant is (a join is answered after its write), not sent through Pub/Sub.
            if room == nil, state.lease == nil, query.isWholeBook { return readWholeBook(query, completion: completion) }
            askOwner(.read(query), local: { $0.checkinRead(query, completion: completion) }, completion: { completion($0.map(\.ack)) })
        }
    }

    /// Runs `local` on the owner's room here, or sends `ask` to the owner and hands its answer
    /// back (`ClusterNodeState.submit`: `cluster_unavailable` when nobody answers). Loop only.
    func askOwner(_ ask: ClusterRequest.CheckinAsk, local: @escaping (DrawRoom) -> Void,
                  completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        submit(.checkin(local: local, completion: completion), forward: .checkin(ask), localFirst: true)
    }

    // MARK: The owner's side of the command channel

    /// A join, claim or read forwarded by instance `from` as request `id`: answered from the
    /// room as a local one is.
    func inboundCheckin(_ ask: ClusterRequest.CheckinAsk, from: String, id: UInt64, room: DrawRoom) {
        let answer = answerer(to: from, id: id)
        switch ask {
        case .join(let body, let device): room.checkinJoin(body, device: device, completion: answer)
        case .claim(let device): room.claim(device: device, completion: answer)
        case .read(let query): room.checkinRead(query) { outcome in answer(outcome.map { CommandReply(ack: $0) }) }
        }
    }

    /// After a reveal (the owner's `winners` frame), this instance's hosts get the winners'
    /// presence from the owner, as the owner's own hosts do.
    func relayWinnerPresence() {
        let hosts = state.members.filter(\.value.isHost).compactMap { handles[$0.key] }
        guard !hosts.isEmpty else { return }
        checkinRead(.winnerPresence) { outcome in
            guard case .success(let message) = outcome, !message.isNull else { return }
            let text = message.canonicalString
            for handle in hosts { handle.send(text: text) }
        }
    }

    /// Pages here (`ClusterNodeState+Checkin` gathered them, with a device cookie or a host's
    /// key) get the owner's public `state` with their own `checkin` part (`me`: its entry and the
    /// rounds it wins; a host's `names`), as the owner's pages get it: one forwarded read for
    /// them all, and the snapshot serialised once, each page's part spliced in.
    func askOwnCheckin(_ ids: [UInt64], _ asks: [CheckinQuery.PageAsk]) {
        checkinRead(.pages(asks)) { [self] outcome in
            guard case .success(let parts) = outcome, let parts = parts.arrayValue, parts.count == ids.count else { return }
            loop.execute { [self] in
                guard room == nil, let text = state.snapshot?.text, let splice = OwnCheckinSplice(snapshot: text) else { return }
                for (id, part) in zip(ids, parts) where part.objectValue != nil {
                    guard let member = state.members[id], let handle = handles[id] else { continue }
                    handle.send(text: splice.text(with: part))
                    if member.isHost { handle.send(text: ClusterNodeState.roleHost) }  // the snapshot says viewer
                }
            }
        }
    }

    // MARK: Storage (owner)

    /// Stores a check-in batch: its rows, the check-in settings and (closing entries) the draw's
    /// new settings in one fenced script (`CheckinStore`). If the outcome is unknown (timeout,
    /// lost connection) the write may have landed: this instance gives the draw up, so that the
    /// next owner (maybe this one again) loads the book from Redis and memory never disagrees
    /// with it (a phone that retries then gets `already_joined` with its entry).
    func appendCheckin(_ batch: RecordBatch, completion: @escaping (Result<Void, any Error>) -> Void) {
        guard let write = batch.checkin else { return completion(.success(())) }
        guard let lease = state.lease, lease.isValid(margin: settings.safetyMargin) else {
            return completion(.failure(ClusterError.fenced("this instance does not hold the lease of draw \(code)")))
        }
        guard batch.records.isEmpty, let room else {
            return completion(.failure(ClusterError.unexpectedReply("a check-in write of draw \(code) without its room or with records")))
        }
        var stored = CheckinStore.Write(config: batch.config)
        switch write {
        case .settings(let text):
            stored.settings = text
        case .join(let inserts):
            stored.rows = inserts.map { ($0.entry.id, ClusterStoredRows.row($0.entry)) }
        case .remove(let id, let reason, let text):
            stored.settings = text
            guard var entry = room.state.checkin.book.entry(id: id) else {
                return completion(.failure(ClusterError.unexpectedReply("entrant \(id) of draw \(code) is not in the book")))
            }
            entry.removedReason = reason
            stored.rows = [(id, ClusterStoredRows.row(entry))]
        case .erase(let text):
            stored.settings = text
            var book = room.state.checkin.book
            book.erase()
            stored.rows = book.entries.map { ($0.id, ClusterStoredRows.row($0)) }
            stored.replaceAll = true
        }
        let erasing = stored.replaceAll
        checkinStore.write(stored, lease: lease) { [self] result in
            switch result {
            case .success:
                // The rows erased are still in the AOF's history until Redis rewrites it: ask it to.
                if erasing { store.client.send(["BGREWRITEAOF"]) { _ in } }
                completion(.success(()))
            case .failure(let error):
                if case .fenced = error {
                    feed(.gaveUp(token: nil, reason: "the check-in write refused its token (\(error))", release: false))
                } else if case .unavailable = error {
                    feed(.gaveUp(token: lease.token, reason: "a check-in write's outcome is unknown (\(error)); the next owner reloads the book",
                                 release: true))
                }
                completion(.failure(error))
            }
        }
    }

    /// A whole-book answer from the book as Redis holds it (`CheckinStore.read`: settings and
    /// rows at one moment); built off the loop (100,000 entries take a while). Loop only.
    func readWholeBook(_ query: CheckinQuery, completion: @escaping @Sendable (Result<JSONValue, CommandFailure>) -> Void) {
        let code = self.code
        checkinStore.read(draw: code) { result in
            switch result {
            case .failure(let error):
                DrawLog.error("cluster: reading the check-in entrants of draw \(code) failed: \(error)", code: code)
                completion(.failure(CommandFailure(code: "cluster_unavailable")))
            case .success(let read):
                let started = DetachedThread.start {
                    guard let book = ClusterStoredRows.book(from: read), let answer = book.wholeBookAnswer(query) else {
                        DrawLog.error("cluster ALARM: an entrant row or the check-in settings of draw \(code) cannot be read back", code: code)
                        return completion(.failure(CommandFailure(code: "cluster_unavailable")))
                    }
                    completion(.success(answer.json))
                }
                if !started { completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
            }
        }
    }

    /// Gives a newly opened room the book read from Redis and the cluster's presence codes.
    func adoptCheckin(_ room: DrawRoom, book: CheckinBook?) {
        room.apply(.checkinRestored(book, presence: Self.presenceCodes(key: settings.key, code: code)))
    }

    /// The presence codes of draw `code` in the cluster: their secret is HMAC-SHA-256 under the
    /// cluster key of a label and the code, so every instance (and every owner after a
    /// failover) shows and accepts the same codes. Neither the secret nor a code is logged.
    static func presenceCodes(key: [UInt8], code: String) -> PresenceCodes {
        PresenceCodes(secret: HMACSHA256.authenticationCode(key: key, message: Array("tombola-presence-secret-v1\u{0}\(code)".utf8)))
    }
}

extension DrawRoom {
    /// A page on another instance belongs to `device` (nil: it left). Cluster owner only.
    func linkRemoteDevice(_ page: String, device: String?) {
        whenReady { [self] in apply(.remoteDevice(page, device: device)) }
    }

    /// Forgets the devices of pages on instances not in `live`. Cluster owner only.
    func pruneRemoteDevices(live: Set<String>) {
        whenReady { [self] in
            guard !state.checkin.remoteDevices.isEmpty else { return }
            apply(.pruneRemoteDevices(live: live))
        }
    }
}
