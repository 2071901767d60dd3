import DrawRoomCore
import RedisStore
import DrawEngine
import JSON

/// Host commands and check-in asks on any instance: run on the owner's room, forwarded to it
/// from a follower and resent until an owner hears them; the owner's side of the command
/// channel (docs/CLUSTER.md, *Host commands on any instance*).
extension ClusterNodeState {
    // MARK: Requests

    /// Request `id` (its message to the owner: `forward`): run here if this instance owns the
    /// draw, kept until the room opens while it takes over, forwarded otherwise. Redis
    /// unreachable: no durable log can be written, so nothing can be done (docs/CLUSTER.md).
    mutating func submit(_ id: UInt64, forward message: ClusterRequest, localFirst: Bool, at now: Moment,
                         _ actions: inout [Action]) {
        if localFirst, roomOpen { return actions.append(.runOnRoom(id)) }
        guard redisUp else { return actions.append(.answer(id, .failure(CommandFailure(code: "cluster_unavailable")))) }
        if roomOpen { return actions.append(.runOnRoom(id)) }
        if lease != nil {
            // Taking over: the room opens once the log is read.
            waitingForRoom.append((id, message, localFirst))
            return
        }
        forward(id, message, at: now, &actions)
    }

    /// Publishes `message` (with this instance and the request id) on the owner's command
    /// channel; the request gets the owner's answer (`replied`), or `cluster_unavailable` when a
    /// new owner takes over after it was delivered, Redis fails, or after `forwardTimeout`.
    mutating func forward(_ id: UInt64, _ message: ClusterRequest, at now: Moment, _ actions: inout [Action]) {
        forwarded[id] = Forwarded(message: .request(message, from: settings.instanceID, id: id), token: highestToken)
        actions.append(.schedule(.forwardTimeout(id), at: now.nanoseconds &+ UInt64(forwardWait(message).nanosecondCount)))
        publishForwarded(id, &actions)
    }

    /// How long forwarded `message` waits for its answer: a Stop of a beacon-sealed draw (as the
    /// owner's latest snapshot here shows its settings) also waits out the longest wait for its
    /// drand round. Any other command, or with no snapshot here (no page of the draw on this
    /// instance), `forwardTimeout`: an owner that never answers (Redis failing over) is given up
    /// on as soon as before.
    func forwardWait(_ message: ClusterRequest) -> Duration {
        guard message.isStop, snapshotSummary.beaconSealed else { return settings.forwardTimeout }
        return settings.forwardTimeout + settings.sealedStopWait
    }

    /// Sends forwarded request `id` while it waits. Nobody listening (no owner right now: a
    /// takeover is under way, or a new owner's SUBSCRIBE is not live yet) means nobody got it, so
    /// it goes again every `resendInterval` until an owner listens or `forwardTimeout` ends it;
    /// this instance may be that owner (it hears its own command channel).
    mutating func publishForwarded(_ id: UInt64, _ actions: inout [Action]) {
        guard let entry = forwarded[id] else { return }
        forwarded[id]?.token = highestToken
        actions.append(.publishCommand(entry.message, request: id))
    }

    mutating func forwardPublished(_ id: UInt64, listeners: Int64?, at now: Moment, _ actions: inout [Action]) {
        guard let entry = forwarded[id] else { return }
        switch listeners {
        case let heard? where heard != 0:
            forwarded[id]?.delivered = true
            // Heard by an owner that a newer one replaced meanwhile: as in `ownerChanged`.
            if entry.token < highestToken, entry.token > 0 { fail(id, &actions) }
        case .some where redisUp:
            actions.append(.schedule(.resend(id), at: now.nanoseconds &+ UInt64(settings.resendInterval.nanosecondCount)))
        default:
            fail(id, &actions)
        }
    }

    /// Gives up waiting for request `id`'s answer: `cluster_unavailable`.
    mutating func fail(_ id: UInt64, _ actions: inout [Action]) {
        guard forwarded.removeValue(forKey: id) != nil else { return }
        actions.append(.cancel(.forwardTimeout(id)))
        actions.append(.cancel(.resend(id)))
        actions.append(.answer(id, .failure(CommandFailure(code: "cluster_unavailable"))))
    }

    /// An answer to a request this instance forwarded (from its reply channel); a second answer
    /// to the same request finds nothing waiting.
    mutating func replied(_ reply: ClusterReply, _ actions: inout [Action]) {
        guard forwarded.removeValue(forKey: reply.id) != nil else { return }
        actions.append(.cancel(.forwardTimeout(reply.id)))
        actions.append(.cancel(.resend(reply.id)))
        actions.append(.answer(reply.id, reply.outcome))
    }

    // MARK: The owner's command channel

    /// Forwarded commands and asks, other instances' viewer counts, their pages' entropy and
    /// devices. A request that cannot be read is answered with why; other malformed messages
    /// are dropped.
    mutating func inbound(_ payload: [UInt8], at now: Moment, _ actions: inout [Action]) {
        guard roomOpen else { return }
        let message: ClusterCommandMessage
        do throws(ClusterWireError) {
            message = try ClusterCommandMessage.decode(payload)
        } catch .unreadableRequest(let from, let id, let code) {
            let reply = ClusterReply(draw: settings.code, id: id, outcome: .failure(CommandFailure(code: code)))
            return actions.append(.publishReply(reply, to: from))
        } catch {
            return
        }
        switch message {
        case .viewers(let from, let count):
            heardFrom(from, count: Int(count), at: now)
            actions.append(.toRoom(.event(.remoteViewers(remoteViewerSum(at: now, &actions)))))
        case .entropy(let from, let page, let entropy):
            actions.append(.toRoom(.event(.remoteEntropy("\(from)/\(page)", entropy))))
        case .device(let from, let page, let device):
            // A report is a sign of life: the instance stays in the counts (its count report follows
            // within a second), so `remoteViewerSum` does not prune the page just reported.
            heardFrom(from, count: nil, at: now)
            actions.append(.toRoom(.linkDevice("\(from)/\(page)", device: device)))
        case .request(let request, let from, let id):
            actions.append(.inbound(request, from: from, id: id))
        }
    }

    package static func isDeviceHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
