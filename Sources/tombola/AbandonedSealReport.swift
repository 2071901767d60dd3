import BLS12381
import DrawEngine

/// What `tombola verify` says of each drand round given up on the record (issue #40,
/// docs/FAIRNESS.md §13): the abandonment, and — when R's value is given (`--beacon-value
/// R:SIGNATURE`, from any drand relay once R is public) and its BLS signature verifies under the
/// lock's chain key — the winners that round would have drawn. A note, never a failure: the
/// record is genuine; what it exposes is for the reader to weigh.
enum AbandonedSealReport {
    static func lines(_ seals: [AbandonedSeal], values: [UInt64: String]) -> (lines: [String], failed: Int) {
        var lines = [String]()
        var failed = 0
        for seal in seals {
            let head = "#\(seal.index) drand round \(seal.beaconRound) of round \(seal.lock.lock.round) ABANDONED on the record (\(seal.reason))"
            guard let signature = values[seal.beaconRound] else {
                lines.append(head + ": once it is public, add --beacon-value \(seal.beaconRound):SIGNATURE (GET {relay}/"
                             + "\(seal.chain.hash)/public/\(seal.beaconRound)) to see the winners it would have drawn")
                continue
            }
            guard BLSSignature.verifyDrand(round: seal.beaconRound, signatureHex: signature, publicKeyHex: seal.chain.publicKey) else {
                lines.append(head + ": FAIL: the --beacon-value given does not verify under the lock's chain key")
                failed += 1
                continue
            }
            guard let winners = seal.winners(signature: signature) else {
                lines.append(head + ": FAIL: the lock's pool cannot be rebuilt to compute its winners")
                failed += 1
                continue
            }
            lines.append(head + "; with its value (BLS signature verified) it would have drawn: "
                         + winners.map { $0.description }.joined(separator: ", "))
        }
        return (lines, failed)
    }
}
