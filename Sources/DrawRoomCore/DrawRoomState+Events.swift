import JSON
import Crypto
import DrawEngine

/// What a draw room takes in and gives out (`DrawRoomState.handle`): its events and actions, the
/// timers and the small values they carry. The shell (`DrawRoom`, `ClusterDrawNode`) sends the
/// events and performs the actions.
extension DrawRoomState {
    /// The moment an event happens: the monotonic instant (timers) and the wall clock
    /// (record times, the `at` of ticks).
    public struct Time {
        public var instant: ContinuousClock.Instant
        public var wallMilliseconds: Double

        public init(instant: ContinuousClock.Instant, wallMilliseconds: Double) {
            self.instant = instant
            self.wallMilliseconds = wallMilliseconds
        }

        public var unixMilliseconds: Int64 { Int64(wallMilliseconds) }
    }

    public enum Timer: Hashable, Sendable {
        /// Rolling ticks, then the Stop slow-down (one at a time).
        case motion
        /// The throttled `viewers` announcement.
        case viewers
        /// The throttled `entrants` announcement (check-in).
        case entrants
        /// The next claim window's end (DrawRoomState+Claim.swift).
        case claims
    }

    /// Who hears a command's outcome: a page (ack or error frame) or a caller of `DrawRoom.perform`.
    public enum ReplyTarget: Equatable, Sendable {
        case member(UInt64)
        case caller(UInt64)
        /// The room's own job (passing an unclaimed win, finishing or voiding a beacon-sealed
        /// round): nobody waits for an answer.
        case server
    }

    /// What the shell found when it checked an `auth` key (rate limit first, then the digest).
    public enum KeyVerdict: Sendable {
        case accepted, refused, rateLimited
    }

    public enum Event {
        case joined(UInt64, remote: String)
        case left(UInt64)
        case received(String, from: UInt64)
        /// A page's `hello`, already read: a new cluster owner takes up a page that said it to
        /// this instance as a follower (`ClusterNodeState.open`).
        case hello(UInt64, entropy: Contribution?, client: String?)
        case keyChecked(UInt64, KeyVerdict)
        /// The key page `id` gave is a named operator's (sent before its `.keyChecked`; issue #41).
        case operatorIdentified(UInt64, OperatorRef)
        /// Operator `id`'s key was revoked: its pages become viewers.
        case operatorRevoked(String)
        /// A command an operator gave over REST (the audit log names them); else as `.command`.
        case commandBy(OperatorRef, HostCommand, seq: Int64?, client: String?, awaitReveal: Bool, caller: UInt64)
        case command(HostCommand, seq: Int64?, client: String?, awaitReveal: Bool, caller: UInt64)
        case timerDue(Timer)
        case stored(Result<Void, StoreFailure>)
        /// After `.resynchronize`: the draw rebuilt from the store, or nil when memory matched it.
        case resynchronized(Draw?)
        /// The stored host key changed (`tombola host-link`): hosts authenticated with the old one become viewers.
        case hostKeyChanged
        /// Cluster mode: the pages other instances serve (their counts summed); announced with ours.
        case remoteViewers(Int)
        /// Cluster mode: a page on another instance (`key`) sent entropy, or left (nil).
        case remoteEntropy(String, Contribution?)
        /// Cluster mode: a new owner restored a round that was rolling: tick again.
        case resumeRolling
        /// Cluster mode: a new owner restored a Stop its owner never revealed (`Draw.resumeStopping`),
        /// `elapsed` after it ran: the rest of the slow-down, then the reveal.
        case resumeStopping(elapsed: Duration)
        /// Cluster mode: ticks carry seqs above `after`, the highest any owner of the draw announced.
        case continueTicks(after: Int64)
        case shutdown
        /// A phone's check-in (REST), answered with `.reply(caller:)`.
        case checkinJoin(CheckinJoin, caller: UInt64)
        /// After `.storeEntrants`.
        case entrantsStored(Result<Void, StoreFailure>)
        /// The page `id` carries the device cookie whose hash is `device`.
        case deviceLinked(UInt64, device: String)
        /// A phone claims its win (REST, its device cookie hashed), answered with `.reply(caller:)`.
        case claim(device: String, caller: UInt64)
        /// What fetching a sealed round's drand round gave (`Action.fetchBeacon`).
        /// `skipped`: the relays skipped for an invalid value, "relay: problem" each.
        case beaconFetched(BeaconRequest, BeaconFetch, skipped: [String] = [])
        /// A draw read back waiting for its drand round (single box): roll again and fetch it.
        case resumeSealed
        /// The shell wired `excludeWinnersOf` to the other draws.
        case linksChanged(PastDrawLinks)
        /// Archived (read-only: every command is `draw_archived`) or not; the shell asks `isSettled` first.
        case archivedChanged(Bool)
        /// Cluster mode: a newly opened owner's check-in book as Redis holds it (nil: none) and the
        /// cluster's presence codes.
        case checkinRestored(CheckinBook?, presence: PresenceCodes?)
        /// Cluster owner: a page on another instance belongs to check-in `device` (nil: it left).
        case remoteDevice(String, device: String?)
        /// Cluster owner: forget the devices of pages on instances not in `live`.
        case pruneRemoteDevices(live: Set<String>)
        /// What `Action.prepareConfigure` worked out off the loop.
        case configurePrepared(ConfigureOutcome)
    }

    public enum Action {
        /// A message for one page (`DrawWire.text` encodes it).
        case send(DrawPageMessage, to: UInt64)
        /// The `state` snapshot for one page; `shared` ones are the same text for many pages (the
        /// shell may encode and compress one frame per `StateSnapshot.Key`).
        case sendState(StateSnapshot, to: UInt64)
        /// To every page (`DrawWire.text` encodes it; a `tick` carries its `seq`, of which a
        /// cluster keeps the highest announced).
        case announce(DrawAnnouncement)
        /// Check `key` for `member` and answer with `.keyChecked`.
        case checkKey(String, remote: String, member: UInt64)
        case reply(caller: UInt64, Result<CommandReply, CommandFailure>)
        /// Store in one synced transaction and answer with `.stored`; nothing else is stored meanwhile.
        case store(RecordBatch)
        /// Store check-ins (one transaction) and answer with `.entrantsStored`.
        case storeEntrants(RecordBatch)
        /// Append to the audit log without holding the queue (a failure is only logged).
        case audit(AuditEntry)
        /// Compare the store with `expectedRecords` and answer with `.resynchronized`.
        case resynchronize(expectedRecords: Int)
        case schedule(Timer, at: ContinuousClock.Instant)
        case cancel(Timer)
        case count(DrawMetric)
        case logError(String)
        /// Fetch a drand round off the loop (at its due time, until the deadline), then `.beaconFetched`.
        case fetchBeacon(BeaconRequest)
        /// Run `plan` off the loop (a large pool's configure), then `.configurePrepared`.
        case prepareConfigure(ConfigurePlan)
    }

    /// What a broadcast is, for those who relay it (cluster mode): a follower keeps the latest
    /// viewer count, forgets the latest tick on `cleared`, relays check-in winners' presence, and
    /// the owner keeps a rolling round's frozen inputs when it announces `rolling`.
    public enum BroadcastKind: Sendable, Equatable {
        case other
        case viewers
        case cleared
        case phase(DrawPhase)
        case checkinWinners
    }

    /// Why a write did not happen: the protocol's code and the detail for the log.
    public struct StoreFailure: Error, Sendable {
        public var code: String
        public var detail: String

        public init(code: String, detail: String) {
            self.code = code
            self.detail = detail
        }
    }

    public struct Member {
        public let remote: String
        public var isHost = false
        public var entropy: Contribution?
        public var client: String?
        /// Cluster mode (`ClusterNodeState`): the hash of the page's check-in device cookie.
        public var device: String? = nil
        /// The named operator whose key this page gave (issue #41); nil: the owner's key, or a viewer.
        public var operatorRef: OperatorRef? = nil

        public init(remote: String, isHost: Bool = false, entropy: Contribution? = nil, client: String? = nil, device: String? = nil) {
            self.remote = remote
            self.isHost = isHost
            self.entropy = entropy
            self.client = client
            self.device = device
        }
    }

    public struct Job {
        public let command: HostCommand
        public let seq: Int64?
        public let client: String?
        public let awaitReveal: Bool
        public let target: ReplyTarget
        /// Who gave the command (the audit log names them); nil: the owner, or the server itself.
        public var by: OperatorRef? = nil
    }

    /// The acks of recently applied sequence numbers of one client (bounded).
    public struct SeqLog {
        public var acks: [Int64: CommandReply] = [:]
        public var order: [Int64] = []

        public mutating func insert(_ seq: Int64, _ reply: CommandReply) {
            acks[seq] = reply
            order.append(seq)
            if order.count > 512 { acks[order.removeFirst()] = nil }
        }
    }

    /// A write in flight and what follows once it is stored.
    struct PendingWrite {
        public enum Continuation {
            /// A prize hand-over's audit entry is stored (issue 45).
            case handover(Handover)
            /// The round's lock (`lock`, the batch's last record) is stored: roll. `lockedBefore`: the
            /// pool hash published before Start (other draws' winners locked in at Start may change it).
            case start(contributors: Set<UInt64>, lockedBefore: String?, lock: DrawRecord?)
            /// `ranAt`: when the stop drew its winners; the slow-down is counted from then.
            case stop(ranAt: ContinuousClock.Instant)
            case clear
            case configure(text: String, duplicates: [String])
            /// `voided`: the `void` message, so every page learns the reason.
            case void(contributors: Set<UInt64>, voided: JSONValue?, reason: String)
            case checkin(CheckinChange, configText: String?)
            /// Unclaimed wins passed on: (winner, alternate) each.
            case pass([(String, String?)])
            /// A beacon-sealed Stop stored its lock: the round keeps rolling until drand round R.
            case seal
            /// R's value and the round drawn from it are stored: slow down and reveal.
            case sealFinished(ranAt: ContinuousClock.Instant, beaconRound: UInt64)
            /// The host abandoned R (`beaconAbandon`): the void is stored; the round keeps rolling.
            case sealVoid(BeaconVoidShown)
            /// A void in a sealed draw is stored with its replacement's beacon lock: the voided winner
            /// leaves the board; the replacement waits for its own drand round (FAIRNESS §13, "Voids").
            case voidSealing(contributors: Set<UInt64>?, voided: JSONValue?)
            /// A sealed replacement's value and round are stored: reveal the replacement.
            case replacementSealed(reason: String?)
            /// An observer's sign-off is stored: every page hears the session's sign-offs.
            case signoff
        }

        public let job: Job
        public let candidate: Draw
        public let then: Continuation
    }

    enum Motion {
        case rolling(due: ContinuousClock.Instant)
        /// The slow-down's delays still to wait after the one scheduled now; the last tick shows `first`.
        /// `steps` ticks in all (the last one `first`); `step` of them sent so far.
        case slowing(remaining: ArraySlice<Duration>, first: DrawValue, step: Int, steps: Int)
    }
}
