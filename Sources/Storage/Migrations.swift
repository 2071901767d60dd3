/// Numbered schema migrations; `PRAGMA user_version` holds how many have run.
/// Append new steps; never edit a released one.
enum Migrations {
    static let steps: [String] = [
        // 1: draws, their append-only record chains and audit chains.
        """
        CREATE TABLE draws (
            code TEXT PRIMARY KEY NOT NULL,
            host_key_hash TEXT NOT NULL,
            created_at REAL NOT NULL,
            config_json TEXT NOT NULL,
            cleared_through INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE records (
            draw_code TEXT NOT NULL REFERENCES draws(code),
            idx INTEGER NOT NULL CHECK (idx >= 0),
            round INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (length(kind) > 0),
            json TEXT NOT NULL,
            hash TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (draw_code, idx)
        ) STRICT;
        CREATE INDEX records_by_round ON records (draw_code, round);
        CREATE TRIGGER records_no_update BEFORE UPDATE ON records
            BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
        CREATE TRIGGER records_no_delete BEFORE DELETE ON records
            BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
        CREATE TABLE audit (
            draw_code TEXT NOT NULL,
            idx INTEGER NOT NULL CHECK (idx >= 0),
            at REAL NOT NULL,
            actor TEXT NOT NULL CHECK (actor IN ('host', 'admin', 'system')),
            action TEXT NOT NULL,
            detail_json TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL,
            PRIMARY KEY (draw_code, idx)
        ) STRICT;
        CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
            BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
        CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
            BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
        """,
        // 2: a draw's branding for the screen (issue #15): title, accent colour, logo.
        """
        CREATE TABLE branding (
            draw_code TEXT PRIMARY KEY NOT NULL REFERENCES draws(code),
            title TEXT NOT NULL,
            accent TEXT NOT NULL,
            logo_type TEXT NOT NULL,
            logo BLOB,
            updated_at REAL NOT NULL
        ) STRICT;
        """,
        // 3: check-in (#14): the entrants who joined a draw from their phones, the values of
        // fields that must be unique, and the draw's check-in settings. Personal columns
        // (name, fields, device hash) become NULL when erased; the public id stays.
        """
        CREATE TABLE entrants (
            draw_code TEXT NOT NULL REFERENCES draws(code),
            public_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            name TEXT,
            fields_json TEXT,
            device_hash TEXT,
            joined_at REAL NOT NULL,
            removed_at REAL,
            removed_reason TEXT,
            PRIMARY KEY (draw_code, public_id)
        ) STRICT;
        CREATE UNIQUE INDEX entrants_by_device ON entrants (draw_code, device_hash);
        CREATE UNIQUE INDEX entrants_by_seq ON entrants (draw_code, seq);
        CREATE TABLE entrant_values (
            draw_code TEXT NOT NULL REFERENCES draws(code),
            field TEXT NOT NULL,
            value TEXT NOT NULL,
            public_id TEXT NOT NULL,
            PRIMARY KEY (draw_code, field, value)
        ) STRICT;
        CREATE TABLE checkin (
            draw_code TEXT PRIMARY KEY NOT NULL REFERENCES draws(code),
            settings_json TEXT NOT NULL
        ) STRICT;
        """,
        // 4: server-wide secrets as SHA-256 digests (issue #25): the admin key a server
        // generated at its first start, or the one an operator gave or `tombola admin-link` issued.
        """
        CREATE TABLE server_keys (
            name TEXT PRIMARY KEY NOT NULL CHECK (name IN ('admin')),
            hash TEXT NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        """,
        // 5: archived and deleted draws (issue #25). A deleted draw's row stays as a tombstone
        // (its code is never reused) and its audit chain stays; its records may then be deleted,
        // and only then: records stay append-only for every draw that is not deleted.
        """
        ALTER TABLE draws ADD COLUMN archived_at REAL;
        ALTER TABLE draws ADD COLUMN deleted_at REAL;
        DROP TRIGGER records_no_delete;
        CREATE TRIGGER records_no_delete BEFORE DELETE ON records
            WHEN (SELECT deleted_at FROM draws WHERE code = OLD.draw_code) IS NULL
            BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
        """,
        // 6: a prize tier's picture and music for the stage (issue #26), by tier position and
        // kind (`picture-0`, `music-2`): presentation only, like the branding.
        """
        CREATE TABLE prize_media (
            draw_code TEXT NOT NULL REFERENCES draws(code),
            slot TEXT NOT NULL,
            type TEXT NOT NULL,
            bytes BLOB NOT NULL,
            version TEXT NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (draw_code, slot)
        ) STRICT;
        """,
        // 7: no re-roll by crash (issue #40): the seed behind a draw's pending commitment, sealed
        // (AES-256-GCM under the data directory's seed key, never stored in the clear), and while
        // its round rolls what Start froze, so a restart carries the same round on to the same
        // winners. Written in the transaction of the `commit` and `lock` records it belongs to.
        """
        CREATE TABLE pending_seeds (
            draw_code TEXT PRIMARY KEY NOT NULL REFERENCES draws(code),
            commitment TEXT NOT NULL,
            sealed TEXT NOT NULL,
            rolling TEXT
        ) STRICT;
        """,
        // 8: signed records (issue #47): the server's Ed25519 signature of each record's hash and
        // its key's fingerprint, beside the record and outside its hash. NULL for records written
        // before signing (they verify as before, reported unsigned).
        """
        ALTER TABLE records ADD COLUMN signature TEXT;
        ALTER TABLE records ADD COLUMN signature_key TEXT;
        """,
        // 9: outside time (issue #47): a TSA's RFC 3161 time-stamp of a chain head (the hash of
        // the record at `idx`), asked for after each round's record; its DER answer as the TSA sent it.
        """
        CREATE TABLE timestamps (
            draw_code TEXT NOT NULL REFERENCES draws(code),
            idx INTEGER NOT NULL CHECK (idx >= 0),
            hash TEXT NOT NULL,
            tsa TEXT NOT NULL,
            response BLOB NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (draw_code, idx)
        ) STRICT;
        """,
        // 10: named operators (issue #41): co-hosts a draw's host added, each with a public id,
        // a name, a role and the SHA-256 of their own key (never the key); revoked ones keep
        // their row (the audit log names them) with the time of revocation.
        """
        CREATE TABLE operators (
            draw_code TEXT NOT NULL,
            id TEXT NOT NULL,
            name TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('host', 'presenter', 'checkin')),
            key_hash TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            revoked_at REAL,
            PRIMARY KEY (draw_code, id)
        ) STRICT;
        """,
        // 11: the observer role (issue #41): a read-only co-host. The table is rebuilt because
        // SQLite cannot change a CHECK constraint; every row is kept as it was.
        """
        CREATE TABLE operators_v11 (
            draw_code TEXT NOT NULL,
            id TEXT NOT NULL,
            name TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('host', 'presenter', 'checkin', 'observer')),
            key_hash TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            revoked_at REAL,
            PRIMARY KEY (draw_code, id)
        ) STRICT;
        INSERT INTO operators_v11 (draw_code, id, name, role, key_hash, created_at, revoked_at)
            SELECT draw_code, id, name, role, key_hash, created_at, revoked_at FROM operators;
        DROP TABLE operators;
        ALTER TABLE operators_v11 RENAME TO operators;
        """,
        // 12: outgoing webhooks (issue #43, item 4): each hook a host added to a draw. The signing
        // secret is kept as given (it must sign, so it cannot be hashed); it is never exported.
        """
        CREATE TABLE webhooks (
            draw_code TEXT NOT NULL REFERENCES draws(code),
            id TEXT NOT NULL,
            url TEXT NOT NULL,
            format TEXT NOT NULL,
            events TEXT NOT NULL,
            language TEXT NOT NULL,
            secret TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (draw_code, id)
        ) STRICT;
        """,
    ]

    /// The version a fully migrated database has.
    static var latest: Int { steps.count }

    /// Runs every step above the database's version, each in its own transaction.
    static func run(on database: Database) throws(StorageError) {
        let current = try database.schemaVersion()
        if current > latest {
            throw StorageError(.schemaTooNew, detail: "the database was written by a newer Tombola (schema version \(current); "
                               + "this version knows up to \(latest)). Run that newer version, or restore a backup made by this one.")
        }
        for version in stride(from: current + 1, through: latest, by: 1) {
            try database.storageTransaction { () throws(StorageError) in
                try database.connection.execute(steps[version - 1])
                try database.connection.execute("PRAGMA user_version = \(version)")
            }
        }
    }
}
