/// How the stage shows a round (docs/STAGE.md): display only, never an input to the winners and
/// not part of the pool's hash. A draw has one (`DrawConfig.mode`); a prize tier may override it.
public enum DisplayMode: String, Sendable, Equatable, CaseIterable {
    /// The rolling number or name (the default).
    case number
    /// Slot reels: one reel per digit for a range, a name reel for a list.
    case reels
    /// A wheel of the list's entrants (a window of it past `DisplayMode.wheelSlices`).
    case wheel
    /// A field of the entrants' names (or public ids) that lights up the winners.
    case names

    /// Slices a wheel shows at most; a larger list shows a window of its wheel.
    public static let wheelSlices = 200
}

/// Which entrant names the screens show masked (docs/STAGE.md, "Name masking"): display only, like
/// `DisplayMode`. The chain, the export and verification keep the real values.
public enum NameMask: String, Sendable, Equatable, CaseIterable {
    /// Names as entered (the default).
    case none
    /// Only values that look like phone numbers: 138****5678.
    case phones
    /// Every name: 张*, 欧阳**, J*** D**, and phone numbers as above.
    case names
}
