/// Rebuilds a stored draw one record at a time (`Draw(config:restoring:)` in steps), so a
/// caller reading a long chain from storage never holds all of it: what stays is what the draw
/// keeps anyway (the session's board, the winners other draws exclude, the chain's head).
///
///     var restorer = try DrawRestorer(config: stored)
///     for record in storedRecordsInOrder { try restorer.add(record) }   // checks each link
///     var draw = restorer.finish()                                      // then prepareCommitment
public struct DrawRestorer: Sendable {
    private var draw: Draw

    public init(config: DrawConfig) throws(DrawError) {
        draw = try Draw(restoringInto: config)
    }

    /// The next record in chain order; `corruptHistory` unless it extends the chain so far.
    public mutating func add(_ record: DrawRecord) throws(DrawError) {
        try draw.restoreNext(record)
    }

    /// How many records were added.
    public var recordCount: Int { draw.recordCount }

    /// The restored draw: idle (revealed on the session's latest round, if any), without a pending commitment.
    public func finish() -> Draw {
        var restored = draw
        restored.finishRestore()
        return restored
    }
}
