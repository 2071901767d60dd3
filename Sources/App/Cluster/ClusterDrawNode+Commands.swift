import DrawRoomCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// Host commands on any instance: run on the owner, forwarded from a follower; entropy and
/// viewer counts sent to the owner (docs/CLUSTER.md, *Host commands on any instance*).
extension ClusterDrawNode {
    // MARK: Commands

    func submit(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                        completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        // Redis unreachable: no durable log can be written, so nothing can be done (docs/CLUSTER.md).
        guard store.client.state == .ready else {
            return completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
        if room != nil {
            return performOnOwner(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
        }
        if lease != nil {
            // Taking over: the room opens once the log is read.
            waitingForRoom.append { [self] in
                submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
            }
            return
        }
        forwardToOwner(["kind": .string("command"), "seq": seq.map { .int($0) } ?? .null, "client": client.map { .string($0) } ?? .null,
                        "await": .bool(awaitReveal), "command": forwardable(command)], completion: completion)
    }

    /// Publishes `members` (with this instance and a forward id) on the owner's command channel;
    /// `completion` gets the owner's answer (`replied`), or `cluster_unavailable` when a new
    /// owner takes over after it was delivered, Redis fails, or after `forwardTimeout`. Loop only.
    func forwardToOwner(_ members: [String: JSONValue], completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        nextForward += 1
        let id = nextForward
        let timer = loop.scheduleTimer(after: settings.forwardTimeout) { [self] in
            forwarded.removeValue(forKey: id)?.completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
        forwarded[id] = Forwarded(completion: completion, timer: timer, token: highestToken)
        var members = members
        members["from"] = .string(runtime.instanceID)
        members["id"] = .int(Int64(id))
        publishForwarded(id, Array(JSONValue.object(members).canonicalString.utf8))
    }

    /// Sends forward `id` while it waits. Nobody listening (no owner right now: a takeover is under
    /// way, or a new owner's SUBSCRIBE is not live yet) means nobody got it, so it goes again
    /// every 50 ms until an owner listens or `forwardTimeout` ends it; this instance may be that
    /// owner (it hears its own command channel). Loop only.
    func publishForwarded(_ id: UInt64, _ message: [UInt8]) {
        guard forwarded[id] != nil else { return }
        forwarded[id]?.token = highestToken
        store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), message]) { [self] result in
            switch result {
            case .success(let reply) where reply.integer != 0:
                forwarded[id]?.delivered = true
                // Heard by an owner that a newer one replaced meanwhile: as in `ownerChanged`.
                if let entry = forwarded[id], entry.token < highestToken, entry.token > 0 {
                    forwarded[id] = nil
                    entry.timer.cancel()
                    entry.completion(.failure(CommandFailure(code: "cluster_unavailable")))
                }
            case .success where store.client.state == .ready:
                _ = loop.scheduleTimer(after: .milliseconds(50)) { [self] in publishForwarded(id, message) }
            default:
                guard let entry = forwarded.removeValue(forKey: id) else { return }
                entry.timer.cancel()
                entry.completion(.failure(CommandFailure(code: "cluster_unavailable")))
            }
        }
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
                if let text = answers[seq], let reply = Self.decodeAnswer(text) { return completion(.success(reply)) }
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
                if case .start = command, self.room === room {
                    // Kept with the round's frozen inputs by `keepRolling` (or alone by `settled`).
                    pendingStartAnswer = PendingAnswer(client: clientKey, seq: seq, reply: reply, completion: completion)
                    return
                }
                // Already kept with the command's records (same answer): nothing more to write.
                if keptWithRecords.removeValue(forKey: "\(clientKey)\t\(seq)") == reply { return completion(.success(reply)) }
                rememberAnswer(PendingAnswer(client: clientKey, seq: seq, reply: reply, completion: completion), alsoSet: nil)
            }
        }
    }

    /// Keeps an answer in Redis (with `alsoSet`, in one script), then gives it to the host. If it
    /// cannot be kept because this instance lost the lease, the host gets `cluster_unavailable`
    /// and resends: the new owner's log says what happened.
    func rememberAnswer(_ pending: PendingAnswer, alsoSet: (key: String, value: [UInt8])?) {
        guard let lease else { return pending.completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
        let answer = KeptAnswer(client: pending.client, seq: pending.seq, text: Self.encodeAnswer(pending.reply),
                                ttl: settings.answerTTL, keep: settings.answersKept)
        store.rememberAnswer(answer, alsoSet: alsoSet, lease: lease) { [self] result in
            switch result {
            case .success(true):
                pending.completion(.success(pending.reply))
            case .success(false):
                stepDown("fenced: another instance holds the lease")
                pending.completion(.failure(CommandFailure(code: "cluster_unavailable")))
            case .failure(let error):
                DrawLog.error("cluster: keeping the answer to a host command of draw \(code) failed: \(error)", code: code)
                pending.completion(.failure(CommandFailure(code: "cluster_unavailable")))
            }
        }
    }

    static func encodeAnswer(_ reply: CommandReply) -> String {
        JSONValue.object(["ack": reply.ack, "result": reply.result ?? .null]).canonicalString
    }

    static func decodeAnswer(_ text: String) -> CommandReply? {
        guard let json = try? JSONValue.parse(text), let ack = json["ack"] else { return nil }
        return CommandReply(ack: ack, result: json["result"].flatMap { $0.isNull ? nil : $0 })
    }

    /// An answer to a command this instance forwarded (from its reply channel).
    func replied(_ json: JSONValue) {
        guard let id = json["id"]?.intValue, let entry = forwarded.removeValue(forKey: UInt64(id)) else { return }
        entry.timer.cancel()
        if json["ok"]?.boolValue == true, let ack = json["ack"] {
            let result = json["result"].flatMap { $0.isNull ? nil : $0 }
            entry.completion(.success(CommandReply(ack: ack, result: result)))
        } else {
            entry.completion(.failure(CommandFailure(code: json["code"]?.stringValue ?? "cluster_unavailable",
                                                     detail: json["detail"].flatMap { $0.isNull ? nil : $0 })))
        }
    }

    /// The owner's inbound channel: forwarded commands and other instances' viewer counts.
    func inbound(_ payload: [UInt8]) {
        guard let room, let json = try? JSONValue.parse(payload), let from = json["from"]?.stringValue else { return }
        switch json["kind"]?.stringValue {
        case "viewers":
            remoteCounts[from] = (Int(json["count"]?.intValue ?? 0), MonotonicClock.nanoseconds())
            room.apply(.remoteViewers(remoteViewerSum()))
        case "entropy":
            guard let page = json["page"]?.intValue else { return }
            let entropy = json["entropy"]?.stringValue.flatMap(Contribution.init(hex:))
            room.apply(.remoteEntropy("\(from)/\(page)", entropy))
        case "checkin":
            inboundCheckin(json, from: from, room: room)
        case "device":
            inboundDevice(json, from: from, room: room)
        case "command":
            guard let id = json["id"]?.intValue, let body = json["command"], let type = body["type"]?.stringValue else { return }
            if type == "checkin" { return inboundCheckinCommand(json, from: from) }
            let replyChannel = RedisDrawKeys.replies(instance: from)
            let code = self.code
            let store = self.store
            @Sendable func answer(_ members: [String: JSONValue]) {
                var members = members
                members["draw"] = .string(code)
                members["id"] = .int(id)
                let text = JSONValue.object(members).canonicalString
                store.client.send([Array("PUBLISH".utf8), Array(replyChannel.utf8), Array(text.utf8)]) { _ in }
            }
            let command: HostCommand
            do {
                if type == "replacePool" {
                    command = .replacePool(try DrawMessageParser.drawConfig(body["config"] ?? .null).pool)
                } else {
                    command = try DrawMessageParser.command(type, body)
                }
            } catch {
                return answer(["ok": .bool(false), "code": .string(error.code)])
            }
            let loop = self.loop
            performOnOwner(command, seq: json["seq"]?.intValue, client: json["client"]?.stringValue,
                           awaitReveal: json["await"]?.boolValue == true) { outcome in
                loop.execute {
                    switch outcome {
                    case .success(let reply):
                        answer(["ok": .bool(true), "ack": reply.ack, "result": reply.result ?? .null])
                    case .failure(let failure):
                        answer(["ok": .bool(false), "code": .string(failure.code)])
                    }
                }
            }
        default:
            break
        }
    }

    /// A page's entropy (nil: it left) for the owner's next round, as it counts a page of its own.
    func forwardEntropy(_ entropy: Contribution?, of id: UInt64) {
        let message: JSONValue = .object(["kind": .string("entropy"), "from": .string(runtime.instanceID), "page": .int(Int64(id)),
                                          "entropy": entropy.map { .string($0.hex) } ?? .null])
        store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), Array(message.canonicalString.utf8)]) { _ in }
    }

    func remoteViewerSum() -> Int {
        let now = MonotonicClock.nanoseconds()
        remoteCounts = remoteCounts.filter { now &- $0.value.at < 3_500_000_000 }
        room?.pruneRemoteDevices(live: Set(remoteCounts.keys))  // ClusterDrawNode+Checkin
        return remoteCounts.values.reduce(0) { $0 + $1.count }
    }
}
