import Server
/// The product's clean page routes onto files of `Public/`: `/calc` → `calc.html`,
/// `/draw/<code>`, `/screen/<code>`, `/watch/<code>` → the page of that name;
/// `/draw/<code>/round/<n>` → `certificate.html`.
enum PageRoutes {
    static func pageFile(for segments: [String]) -> [String]? {
        switch segments.count {
        case 1 where segments[0] == "calc": return ["calc.html"]
        case 2 where ["draw", "screen", "watch"].contains(segments[0]) && isDrawCode(segments[1]):
            return [segments[0] + ".html"]
        // A round's certificate (docs/STAGE.md): `/draw/<code>/round/<n>`.
        case 4 where segments[0] == "draw" && isDrawCode(segments[1]) && segments[2] == "round" && isRoundNumber(segments[3]):
            return ["certificate.html"]
        default: return nil
        }
    }

    /// 1 to 9 decimal digits, not starting with 0.
    static func isRoundNumber(_ text: String) -> Bool {
        (1...9).contains(text.utf8.count) && text.utf8.first != UInt8(ascii: "0")
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Draw codes are short and unambiguous; anything else under `/draw/` is not a page.
    static func isDrawCode(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
