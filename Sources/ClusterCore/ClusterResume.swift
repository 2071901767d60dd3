import DrawRoomCore
import DrawEngine
import JSON

/// What a new owner carries on, decided from what the old owner left in Redis beside the
/// log (docs/CLUSTER.md, *Takeover*). Pure: the draw as rebuilt from the log (with its
/// commitment resumed), the `{d:CODE}:rolling` and `{d:CODE}:snap` texts and the time are
/// passed in; the decision comes out.
enum ClusterResume {
    /// Puts `draw` back in the phase the old owner left it in, and returns the event the new
    /// room then gets: `.resumeRolling` (a round was rolling: it rolls on with the inputs frozen
    /// at its Start and the lock that Start stored, the chain's last record), `.resumeStopping` (a Stop was stored but its round never revealed: the
    /// rest of its slow-down, then the reveal), or nil (nothing was under way).
    /// `now`: wall clock, Unix milliseconds.
    static func resume(_ draw: inout Draw, rolling: String?, snapshot: String?, now: Int64) -> DrawRoomState.Event? {
        // Read back waiting for its drand round (the chain ends with the round's `beacon` lock):
        // it rolls on and the new owner fetches that same drand round (docs/FAIRNESS.md §13).
        if draw.sealing != nil { return .resumeSealed }
        if let hint = rolling.flatMap({ try? ClusterRollingHint.decode($0) }), hint.commitment == draw.commit?.commitment,
           (try? draw.resumeRolling(contributions: hint.contributions, audience: hint.audience)) != nil {
            return .resumeRolling
        }
        guard let stopped = draw.lastResult, !revealed(stopped, snapshot: snapshot),
              (try? draw.resumeStopping()) != nil else { return nil }
        return .resumeStopping(elapsed: .milliseconds(max(0, now - stopped.at)))
    }

    /// Whether the pages were shown `round`'s reveal: the old owner's latest snapshot (what it
    /// stored after its last announcement) is idle or revealed past that round. No readable
    /// snapshot: not shown (showing a landing again costs a second and a half; never showing
    /// one freezes the stage).
    static func revealed(_ round: DrawRecord, snapshot: String?) -> Bool {
        guard case .round(let drawn) = round.body, let text = snapshot, let stored = ClusterSnapshot.parse(text[...])?.0 else { return false }
        let state = ClusterSnapshotSummary(stateText: stored.text)
        guard let phase = state.phase, let next = state.round else { return false }
        return (phase == DrawPhase.revealed.rawValue || phase == DrawPhase.idle.rawValue) && next > Int64(drawn.round)
    }
}
