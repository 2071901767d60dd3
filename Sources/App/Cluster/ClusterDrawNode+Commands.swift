import DrawRoomCore
import ClusterCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// Host commands on any instance (docs/CLUSTER.md, *Host commands on any instance*): where one
/// runs, and its forwarding, are `ClusterNodeState`'s (+Forwarding); here the owner runs it on
/// its room and keeps its answer.
extension ClusterDrawNode {
    // MARK: Commands

    /// A host command from a page here or a route: run on the owner's room (here, or forwarded;
    /// `ClusterNodeState.submit` decides). Loop only.
    func submit(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        submit(.command(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion),
               forward: .command(forwardable(command), seq: seq, client: client, awaitReveal: awaitReveal), localFirst: false)
    }

    /// Runs a command on this instance's room (it owns the draw). A command with a `seq` is
    /// deduplicated across owners: its answer is kept in Redis (`{d:CODE}:acks`) before the host
    /// gets it, so the same `client`/`seq` resent later, to this owner or a new one after a
    /// takeover, gets the original answer and runs nothing again (docs/CLUSTER.md).
    func performOnOwner(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                        completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        guard let room else { return submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion) }
        guard let seq else {
            return refreshWinners(of: linkedDraws(of: command, in: room)) { [self] complete in
                guard complete else { return completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
                guard let room = self.room else {
                    return submit(command, seq: nil, client: client, awaitReveal: awaitReveal, completion: completion)
                }
                room.perform(command, seq: nil, client: client, awaitReveal: awaitReveal, completion: completion)
            }
        }
        let clientKey = client ?? ""
        store.answers(draw: code, client: clientKey) { [self] result in
            switch result {
            case .failure:
                return completion(.failure(CommandFailure(code: "cluster_unavailable")))
            case .success(let answers):
                if let text = answers[seq], let reply = try? ClusterReply.keptReply(text) { return completion(.success(reply)) }
            }
            guard let room = self.room else {
                return submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
            }
            run(command, seq: seq, clientKey: clientKey, client: client, awaitReveal: awaitReveal, on: room, completion: completion)
        }
    }

    /// Reads the linked draws' winners, then runs the command and keeps its answer.
    private func run(_ command: HostCommand, seq: Int64, clientKey: String, client: String?, awaitReveal: Bool, on room: DrawRoom,
                     completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        refreshWinners(of: linkedDraws(of: command, in: room)) { [self] complete in
            guard complete else { return completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
            guard self.room === room else {
                return submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
            }
            room.perform(command, seq: seq, client: client, awaitReveal: awaitReveal) { [self] outcome in
                // On the loop, inside the room's step: an answer comes before the broadcasts that follow it.
                guard case .success(let reply) = outcome else { return completion(outcome) }
                let kept = keptWithRecords.removeValue(forKey: "\(clientKey)\t\(seq)")
                if case .start = command, self.room === room {
                    // Kept with its lock record too, and again with the round's frozen inputs by
                    // `keepRolling` (or alone by `settled`).
                    pendingStartAnswer = PendingAnswer(client: clientKey, seq: seq, reply: reply, completion: completion)
                    return
                }
                // Already kept with the command's records (same answer): nothing more to write.
                if kept == reply { return completion(.success(reply)) }
                rememberAnswer(PendingAnswer(client: clientKey, seq: seq, reply: reply, completion: completion), alsoSet: nil)
            }
        }
    }

    /// Keeps an answer in Redis (with `alsoSet`, in one script), then gives it to the host. If it
    /// cannot be kept because this instance lost the lease, the host gets `cluster_unavailable`
    /// and resends: the new owner's log says what happened.
    func rememberAnswer(_ pending: PendingAnswer, alsoSet: (key: String, value: [UInt8])?) {
        guard let lease = state.lease else { return pending.completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
        let answer = KeptAnswer(client: pending.client, seq: pending.seq, text: ClusterReply.kept(pending.reply),
                                ttl: settings.answerTTL, keep: settings.answersKept)
        store.rememberAnswer(answer, alsoSet: alsoSet, lease: lease) { [self] result in
            switch result {
            case .success(true):
                pending.completion(.success(pending.reply))
            case .success(false):
                feed(.gaveUp(token: lease.token, reason: "fenced: another instance holds the lease", release: false))
                pending.completion(.failure(CommandFailure(code: "cluster_unavailable")))
            case .failure(let error):
                DrawLog.error("cluster: keeping the answer to a host command of draw \(code) failed: \(error)", code: code)
                pending.completion(.failure(CommandFailure(code: "cluster_unavailable")))
            }
        }
    }

    /// A host command forwarded by instance `from` as request `id` (`ClusterNodeState.inbound`):
    /// run here, its answer published on that instance's reply channel (read by
    /// `ClusterNodeState.replied` there).
    func inboundCommand(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool, from: String, id: UInt64) {
        let reply = answerer(to: from, id: id)
        performOnOwner(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: reply)
    }

    /// Answers request `id` of instance `from` on its reply channel, from any thread.
    func answerer(to from: String, id: UInt64) -> @Sendable (Result<CommandReply, CommandFailure>) -> Void {
        let code = self.code
        let loop = self.loop
        return { [self] outcome in loop.execute { [self] in publishReply(ClusterReply(draw: code, id: id, outcome: outcome), to: from) } }
    }
}
