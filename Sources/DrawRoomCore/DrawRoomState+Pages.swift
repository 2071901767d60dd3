import JSON
import Crypto
import DrawEngine

/// Pages coming, going and talking: hello, a page's message, a host key checked, the throttled
/// viewer count.
extension DrawRoomState {
    // MARK: Messages

    /// A page's entropy (for the next Start) and its client id (a host's resent commands).
    mutating func hello(_ id: UInt64, entropy: Contribution?, client: String?) {
        if let entropy { members[id]?.entropy = entropy }
        if let client { members[id]?.client = client }
    }

    mutating func received(_ text: String, from id: UInt64, at time: Time,
                                   using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard var member = members[id] else { return }
        let message: ClientMessage
        do {
            message = try DrawMessageParser.parse(text)
        } catch {
            actions.append(.send(.error(code: error.code, seq: nil), to: id))
            return
        }
        switch message {
        case .hello(let entropy, let client):
            hello(id, entropy: entropy, client: client)
        case .sync:
            actions.append(.sendState(snapshot(for: id), to: id))
        case .auth(let key, let client):
            if let client { member.client = client }
            members[id] = member
            actions.append(.checkKey(key, remote: member.remote, member: id))
        case .command(let command, let seq):
            guard member.isHost else {
                actions.append(.send(.error(code: "not_host", seq: nil), to: id))
                return
            }
            // A named operator's role (issue #41): a presenter starts and stops, nothing else.
            guard Self.permits(member, command) else {
                actions.append(.send(.error(code: "role_forbidden", seq: seq), to: id))
                return
            }
            queue.append(Job(command: command, seq: seq, client: member.client, awaitReveal: false, target: .member(id),
                             by: member.operatorRef))
            pump(at: time, using: &random, &actions)
            snapshots = [:]
        case .witness(let report):
            witnessed(report, from: id, at: time, &actions)
        }
    }

    mutating func keyChecked(_ id: UInt64, _ verdict: KeyVerdict, _ actions: inout [Action]) {
        guard members[id] != nil else { return }
        switch verdict {
        case .accepted:
            members[id]?.isHost = true
            actions.append(.send(.role(host: true), to: id))
            announceOperator(to: id, &actions)
            if let report = witnesses.latest { actions.append(.send(.witness(report), to: id)) }
        case .refused:
            actions.append(.count(.authFailures))
            actions.append(.send(.error(code: "bad_key", seq: nil), to: id))
        case .rateLimited:
            actions.append(.send(.error(code: "rate_limited", seq: nil), to: id))
        }
    }

    // MARK: Viewer count

    /// At most one `viewers` message a second, and only when the count changed.
    mutating func scheduleViewerAnnouncement(at time: Time, _ actions: inout [Action]) {
        guard !viewerTimerArmed else { return }
        viewerTimerArmed = true
        actions.append(.schedule(.viewers, at: time.instant + .seconds(1)))
    }

    mutating func viewersDue(at time: Time, _ actions: inout [Action]) {
        guard viewerTimerArmed else { return }
        viewerTimerArmed = false
        guard viewerCount != announcedViewers else { return }
        announcedViewers = viewerCount
        actions.append(.announce(.viewers(viewerCount)))
        scheduleViewerAnnouncement(at: time, &actions)
    }
}
