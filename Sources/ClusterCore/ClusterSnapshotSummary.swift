import JSON

/// What this instance needs to know of the owner's latest public `state` (a snapshot's text),
/// read once when the snapshot is taken (`ClusterNodeState.snapshot`) instead of each reader
/// parsing or searching the text again.
package struct ClusterSnapshotSummary: Equatable, Sendable {
    /// The draw's Stops are beacon-sealed (`config.beacon`): a forwarded Stop waits for its drand round.
    package var beaconSealed = false
    /// The settings hash (`config.hash`): a follower's settings document is kept while it holds.
    package var settingsHash: String?
    /// The state carries a `checkin` part: pages with a device or a host's key get their own.
    package var hasCheckin = false
    /// The phase and the next round's number (`phase`, `round`): whether pages were shown a reveal.
    package var phase: String?
    package var round: Int64?

    package init() {}

    package init(stateText: String) {
        guard let json = try? JSONValue.parse(stateText) else { return }
        beaconSealed = json["config"]?["beacon"]?.boolValue == true
        settingsHash = json["config"]?["hash"]?.stringValue
        hasCheckin = json["checkin"]?.objectValue != nil
        phase = json["phase"]?.stringValue
        round = json["round"]?.intValue
    }
}
