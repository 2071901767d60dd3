import DrawEngine

/// Private draws (issue #42, docs/FAIRNESS.md §22): what a page other than the host's is told of
/// an entrant's name. A private list's chain, settings and frames hold public ids only
/// (`PrivateEntries`); a check-in pool's names are the book's. Either way a page that is not the
/// host's learns a *winner's* name only, masked by the server (`NameMasking`), never the real
/// value, and never the names of the pool at large (masks of the whole pool would let a guesser
/// holding the list confirm who entered).
extension DrawRoomState {
    /// A private draw whose pool is a list of names (drawn as public ids).
    public var isPrivateList: Bool { draw.config.isPrivate && draw.config.poolHasNames }

    /// Whether the board's values are ids with names beside them (check-in, a private list).
    var hasEntrantNames: Bool { isCheckinPool || isPrivateList }

    /// `name` as a page that is not the host's may see it.
    func publicName(_ name: String) -> String {
        draw.config.isPrivate ? NameMasking.mask(name) : name
    }

    /// The name behind board value `id` that the asker may see: the host's, the real one; anyone
    /// else's, a check-in name when the host made names public, masked in a private draw.
    func entrantName(_ id: String, host: Bool) -> String? {
        if isPrivateList {
            guard let name = draw.privateName(of: id) else { return nil }
            return host ? name : NameMasking.mask(name)
        }
        guard isCheckinPool, host || checkin.book.settings.publicNames, let name = checkin.book.entry(id: id)?.name else { return nil }
        return host ? name : publicName(name)
    }
}
