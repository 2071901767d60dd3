/// Private draws (issue #42, docs/FAIRNESS.md §22 "Private draws"): a list pool whose chain,
/// public settings, frames and exports never carry an entrant's name. Each entry is drawn, locked
/// and published as its *public id*:
///
///     secret  = 32 random bytes, the draw's                          kept by the server only
///     salt_i  = HMAC-SHA256(secret, "salt" || 0x00 || name_i)        the entrant's receipt holds it
///     c_i     = hex(SHA256(salt_i || name_i))                          a commitment to the entry
///     id_i    = "#" || c_i                                             what the chain lists
///
/// The entry tree's leaf over `id_i` (§3) therefore commits to the salted entry: the public can
/// recheck every winner's position, an entrant holding `salt_i` and its name can find and prove
/// its own entry, and a guessed name cannot be confirmed without `salt_i` (256 secret bits). The
/// id carries nothing of the name (not even its masked form: with the whole list as a dictionary a
/// mask would confirm many names); pages learn a winner's masked name (`NameMasking`, done by the
/// server) beside the id, as a check-in winner's name.
public enum PrivateEntries {
    /// A draw's secret: 32 bytes from the OS CSPRNG, made at the draw's first private configure and
    /// kept in its stored settings beside the names it hides (whoever reads those has the names
    /// anyway), never in the public settings, the chain or an export without the host key.
    public static func newSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The entry's salt: one per name, the same in every list of the draw (so a name keeps its
    /// public id from round to round, and repeat rules keep matching it).
    public static func salt(secret: [UInt8], name: String) -> [UInt8] {
        Salter(secret: secret).salt(name: name)
    }

    /// HMAC-SHA256 under one secret for many names (RFC 2104 written out: the padded keys made
    /// once, two plain digests per name): OpenSSL's one-shot `HMAC()` sets up a context per call,
    /// which made a 100,000-name private list's configure cost several times its hashing.
    public struct Salter: Sendable {
        let inner: [UInt8]
        let outer: [UInt8]

        public init(secret: [UInt8]) {
            var key = secret.count > 64 ? Hashing.sha256(secret) : secret
            key += [UInt8](repeating: 0, count: 64 - key.count)
            inner = key.map { $0 ^ 0x36 }
            outer = key.map { $0 ^ 0x5c }
        }

        public func salt(name: String) -> [UInt8] {
            var message = inner
            message.reserveCapacity(64 + 5 + name.utf8.count)
            message += Array("salt".utf8)
            message.append(0)
            message += Array(name.utf8)
            return Hashing.sha256(outer + Hashing.sha256(message))
        }

        /// The entry's public id.
        public func publicID(name: String) -> String {
            let salt = salt(name: name)
            return PrivateEntries.prefix + PrivateEntries.commitment(salt: salt, name: name)
        }
    }

    /// `hex(SHA256(salt || UTF-8(name)))`.
    public static func commitment(salt: [UInt8], name: String) -> String {
        Hashing.sha256Hex(salt + Array(name.utf8))
    }

    public static let prefix = "#"

    public static func publicID(name: String, secret: [UInt8]) -> String {
        Salter(secret: secret).publicID(name: name)
    }

    /// The commitment of a public id (nil: not a private entry's id).
    public static func commitment(ofPublicID id: String) -> String? {
        guard id.hasPrefix(prefix) else { return nil }
        let tail = String(id.dropFirst())
        return Hex.isLowercase(tail, byteCount: 32) ? tail : nil
    }

    /// Whether `name` with `salt` is the entry behind `id` (what a receipt holder's phone checks).
    public static func opens(id: String, name: String, salt: [UInt8]) -> Bool {
        commitment(ofPublicID: id) == commitment(salt: salt, name: name)
    }
}

/// The screens' name masking of docs/STAGE.md ("Name masking", mode `names`), as
/// `Public/js/lib/mask.js` `maskName` does it: a phone number keeps its first 3 and last 4 digits
/// (2 and 2 below 11 digits); every word of a value with a letter keeps its first character.
public enum NameMasking {
    public static func mask(_ text: String) -> String {
        let trimmed = EntrantList.trim(text)
        if let phone = maskPhone(trimmed) { return phone }
        guard trimmed.unicodeScalars.contains(where: { $0.properties.isAlphabetic && $0.properties.generalCategory.isLetter }) else {
            // No letter: an employee number, a range's value. Private draws still hide it (a
            // number can be personal): every character but the first becomes `*`.
            return maskWord(trimmed)
        }
        var out = ""
        var word = ""
        for character in trimmed {
            if character.isWhitespace {
                if !word.isEmpty { out += maskWord(word); word = "" }
                out.append(character)
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { out += maskWord(word) }
        return out
    }

    static func maskWord(_ word: String) -> String {
        guard let first = word.first else { return word }
        return String(first) + String(repeating: "*", count: max(1, word.count - 1))
    }

    static func maskPhone(_ text: String) -> String? {
        let allowed: Set<Character> = [" ", "(", ")", ".", "-"]
        var characters = Substring(text)
        if characters.first == "+" { characters = characters.dropFirst() }
        guard let first = characters.first, first.isASCII, first.isNumber,
              characters.allSatisfy({ ($0.isASCII && $0.isNumber) || allowed.contains($0) || $0.isWhitespace }) else { return nil }
        let digits = characters.filter { $0.isASCII && $0.isNumber }
        guard (7...15).contains(digits.count) else { return nil }
        let head = digits.count >= 11 ? 3 : 2
        let tail = digits.count >= 11 ? 4 : 2
        return String(digits.prefix(head)) + String(repeating: "*", count: digits.count - head - tail) + String(digits.suffix(tail))
    }
}

extension Unicode.GeneralCategory {
    var isLetter: Bool {
        switch self {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }
}
