import BLS12381
import DrawEngine

/// What `tombola verify` checks of each sealed round's drand value beyond the records
/// (docs/FAIRNESS.md §13): the chain (quicknet's hash must carry quicknet's pinned key and timing;
/// any other chain is refused unless the reader trusts it by hash and key) and the BLS signature
/// under that chain's key.
enum BeaconSignatureCheck {
    /// One line per value, `#i drand round R: OK (…)` or `…: FAIL: …`, and whether it passed.
    static func check(_ item: BeaconValueToCheck, trusted: [(hash: String, publicKey: String)]) -> (line: String, ok: Bool) {
        let head = "#\(item.index) drand round \(item.beaconRound)"
        let quicknet = BeaconChain.quicknet
        let chainName: String
        if item.chain.hash == quicknet.hash {
            guard item.chain == quicknet else {
                return ("\(head): FAIL: the chain claims quicknet's hash with another public key, genesis or period", false)
            }
            chainName = "drand quicknet's pinned key"
        } else if trusted.contains(where: { $0.hash == item.chain.hash && $0.publicKey == item.chain.publicKey }) {
            chainName = "the key of chain \(item.chain.hash.prefix(12))… (trusted with --trust-chain)"
        } else {
            return ("\(head): FAIL: chain \(item.chain.hash.prefix(12))… is not drand's quicknet: its key is whoever runs it "
                    + "(--trust-chain HASH:PUBLICKEY to accept a chain you trust)", false)
        }
        guard BLSSignature.verifyDrand(round: item.beaconRound, signatureHex: item.signature, publicKeyHex: item.chain.publicKey) else {
            return ("\(head): FAIL: its BLS signature does not verify under \(chainName)", false)
        }
        return ("\(head): OK (BLS signature verified under \(chainName))", true)
    }

    /// `HASH:PUBLICKEY` (64 and 192 lower-case hex digits).
    static func parseTrust(_ text: String) -> (hash: String, publicKey: String)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, BeaconChain(hash: parts[0], publicKey: parts[1], genesis: 1, period: 1).isWellFormed else { return nil }
        return (parts[0], parts[1])
    }
}
