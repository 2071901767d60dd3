import Server
/// The English words for every error code a draw room or the draw API can return. Pages
/// show their own translations, keyed by `code`; tools read `message`.
enum DrawErrorText {
    static func message(for code: String) -> String {
        table[code] ?? "The request could not be completed."
    }

    /// `unauthorized` where the admin key is wanted (one code, the words name the key).
    static let needsAdminKey = "This needs the server's admin key: send Authorization: Bearer <admin key>."

    static let table: [String: String] = [
        // Messages
        "bad_json": "The message is not a JSON object.",
        "bad_message": "A field of the message is missing or has the wrong type.",
        "unknown_type": "Unknown message type.",
        "bad_entropy": "Entropy must be 32 hexadecimal digits (16 bytes).",
        "too_large": "The request is too large.",
        // Roles
        "bad_key": "Wrong host key: that key does not control this draw.",
        "bad_admin_key": "Wrong admin key: that is not this server's admin key.",
        "unauthorized": "This needs the draw's host key: send Authorization: Bearer <host key>.",
        "rate_limited": "Too many wrong keys from this address; wait a moment and try again.",
        "not_host": "Only the host can do that.",
        "unknown_draw": "There is no draw with that code.",
        "not_found": "Not found.",
        "method_not_allowed": "That method is not allowed here.",
        "bad_text": "The text is empty, too long or cannot be encoded.",
        "busy": "The server is starting up; try again in a moment.",
        // Admin (#25)
        "draw_archived": "This draw is archived: it can be viewed, verified and exported, not changed. Un-archive it first.",
        "not_archived": "Archive the draw before deleting it.",
        "default_draw": "The server's default draw cannot be deleted (archive it, or start with another --default-draw).",
        "draw_linked": "Another draw excludes this draw's winners; remove it from that draw's settings first.",
        "not_supported": "Listing, archiving and deleting draws are not available in cluster mode.",
        // Storage
        "storage_failed": "The draw could not be saved; nothing was announced. Try again.",
        "disk_full": "The server's disk is full; nothing was announced. Free some space and try again.",
        "cluster_unavailable": "The cluster store (Redis) is unavailable or the draw is changing hands; nothing was announced. Try again.",
        // Check-in (#14)
        "not_checkin": "This draw's pool is not checked-in entrants.",
        "entries_open": "Entries are still open; close them before starting a round.",
        "entries_closed": "Entries are closed.",
        "already_joined": "This device has already entered this draw.",
        "duplicate_value": "Someone has already entered with that value.",
        "bad_idempotency_key": "The Idempotency-Key header must be 16–64 of A–Z, a–z, 0–9, - or _, sent once.",
        "entries_full": "The draw has as many entrants as it can hold.",
        "bad_name": "Enter your name (1–60 characters, no control characters).",
        "bad_field": "A field is too long, has control characters or is not one the host asked for.",
        "missing_field": "A required field is empty.",
        "bad_code": "That is not the code the screen shows now.",
        "bad_settings": "The check-in settings are not valid (at most 8 fields with keys of a–z, 0–9, _ or -).",
        "no_entry": "This device has not entered this draw.",
        "unknown_entrant": "There is no entrant with that id in the pool.",
        // Engine (DrawError codes)
        "invalid_range": "The range must go from a smaller to a larger whole number within ±9007199254740991.",
        "pool_too_small": "The pool needs at least 2 numbers or names.",
        "pool_too_large": "A range can hold at most 1,000,000,000,000 numbers.",
        "too_many_entrants": "A list can hold at most 100,000 names.",
        "bad_entrant": "A name is longer than 200 bytes or contains a control character.",
        "bad_exclusion": "An exclusion is not in the pool, or there are more than 100,000.",
        "all_excluded": "Every entrant is excluded.",
        "bad_per_stop": "Winners per stop must be 1 to 100,000, or \"all\".",
        "bad_mode": "The display mode must be number, reels, wheel or names (for the draw and for each prize).",
        "bad_mask": "Name masking must be none, phones or names.",
        "bad_prize": "A prize needs a name of 1–100 characters and a count of 1 to 1,000,000 (at most 100 prizes).",
        "bad_audience": "The audience number must be 1 to 32 digits.",
        "wrong_phase": "That cannot be done right now.",
        "not_committed": "No commitment is published yet.",
        "pool_exhausted": "Everyone in the pool has won; change the pool or clear the board.",
        "prizes_done": "Every prize has been drawn.",
        "unknown_round": "That round is not on the board.",
        "bad_page": "offset must be a whole number from 0, and limit a whole number from 1 to 1000 (200 for rounds).",
        "unknown_winner": "That is not a current winner of the round.",
        "already_voided": "That winner was voided already.",
        "bad_reason": "A reason must be 1 to 200 characters without control characters.",
        "corrupt_history": "The stored history of this draw is damaged.",
        "duplicate_entrant": "A name or id appears twice in the list; merge the rows (add up their tickets) first.",
        "bad_tickets": "Tickets must be a whole number from 1 to 1,000,000.",
        "bad_group": "A group must be 1 to 100 bytes without control characters (at most 100 per prize, and only for a list).",
        "none_eligible": "Nobody left in the pool may win this prize (its groups).",
        "bad_past_draw": "Past-winner exclusion: at most 20 other draws of a list pool, each an existing draw code, not this draw.",
        "bad_title": "The event title must be at most 100 characters without control characters.",
        "bad_accent": "The accent colour must be a hex colour such as #c8102e.",
        "bad_logo": "The logo must be a PNG, JPEG or WebP image (SVG is not accepted).",
        "logo_too_large": "The logo must be at most 256 KiB.",
        "no_logo": "This draw has no logo.",
        "past_draw_key": "To exclude the winners of another draw, give that draw's host key.",
        // Claims (#26)
        "bad_claim": "Claims need a check-in pool, a window of 10 to 600 seconds and 1 to 20 alternates.",
        "not_winner": "This phone has no win to claim now.",
        "claim_closed": "The time to claim has run out: the prize passed to the next alternate.",
        "claim_open": "Winners are still claiming: wait until every claim window has ended.",
        // Spreadsheet import (the whole import is refused; `line` says where)
        "import_too_large": "The import is larger than the server accepts.",
        "import_field_too_large": "A cell is longer than 1,000 bytes.",
        "import_too_many_columns": "A row has more than 100 columns.",
        "import_too_many_rows": "The import has more than 100,000 rows.",
        "import_bad_encoding": "The file is not text in UTF-8, UTF-16 or GB18030; save it as CSV UTF-8.",
        "import_unterminated_quote": "A quoted cell is never closed.",
        "import_empty": "The import holds no rows.",
        "import_rejected": "Some rows were rejected or repeated; nothing was saved. Fix them (or merge repeats) and upload again.",
    ]
}
