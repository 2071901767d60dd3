import DrawEngine

/// A draw's settings and records as the round log holds them, with the sealed seed of its
/// last commitment and where the log ends.
package struct ClusterChain: Sendable {
    package var configJSON: String
    package var records: [DrawRecord]
    /// The seal beside the last `commit` record and that record's commitment.
    package var pendingSeal: (seal: String, commitment: String)?
    package var epoch: String
    package var offset: String

    package init(configJSON: String, records: [DrawRecord], pendingSeal: (seal: String, commitment: String)?,
                 epoch: String, offset: String) {
        self.configJSON = configJSON
        self.records = records
        self.pendingSeal = pendingSeal
        self.epoch = epoch
        self.offset = offset
    }
}
