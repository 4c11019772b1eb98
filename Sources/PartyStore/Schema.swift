/// Versioned schema, one list for both backends: the dialect's count of applied migrations (SQLite's
/// `PRAGMA user_version`, PostgreSQL's `schema_version` table); each runs once, in order. For SQLite the
/// text is exactly what it was before PostgreSQL came (databases made then and now are the same).
enum Schema {
    static let migrations = migrations(.sqlite)

    static func migrations(_ dialect: SQLDialect) -> [String] {
        let integer = dialect.integer, real = dialect.real
        // The event log of several instances (migration 5), as migration 17 builds it again.
        let eventColumns = """

                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                seq \(integer) NOT NULL,
                type TEXT NOT NULL,
                message TEXT NOT NULL,
                audience_source TEXT,
                audience_installation_id TEXT,
                created_at \(real) NOT NULL,
                PRIMARY KEY (party_id, seq)

            """
        return [
            """
            CREATE TABLE parties (
                id TEXT PRIMARY KEY,
                guest_pin TEXT NOT NULL,
                host_pin TEXT NOT NULL,
                provider TEXT NOT NULL,
                created_at \(real) NOT NULL,
                ended_at \(real),
                default_playlist_id TEXT,
                current_entry_id \(integer),
                playback_started_at \(real),
                paused_position_ms \(integer) NOT NULL DEFAULT 0,
                is_playing \(integer) NOT NULL DEFAULT 0,
                paused_by_host \(integer) NOT NULL DEFAULT 0,
                last_advance_at \(real),
                monitor_token TEXT,
                monitor_device_id TEXT
            );
            -- R2: PINs are unique among active parties only; an ended party frees them.
            CREATE UNIQUE INDEX parties_active_guest_pin ON parties(guest_pin) WHERE ended_at IS NULL;
            CREATE UNIQUE INDEX parties_active_host_pin ON parties(host_pin) WHERE ended_at IS NULL;
            CREATE TABLE queue_entries (
                id \(dialect.autoincrementPrimaryKey),
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                uri TEXT NOT NULL,
                track_id TEXT NOT NULL,
                name TEXT NOT NULL,
                artists TEXT NOT NULL,
                album TEXT NOT NULL,
                image_url TEXT,
                duration_ms \(integer) NOT NULL,
                added_at \(real) NOT NULL,
                added_by TEXT NOT NULL,
                autofilled \(integer) NOT NULL DEFAULT 0
            );
            CREATE INDEX queue_entries_party ON queue_entries(party_id);
            CREATE TABLE votes (
                entry_id \(integer) NOT NULL REFERENCES queue_entries(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                PRIMARY KEY (entry_id, device_id)
            )\(dialect.withoutRowID);
            CREATE TABLE blacklist (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                word TEXT NOT NULL,
                PRIMARY KEY (party_id, word)
            )\(dialect.withoutRowID);
            CREATE TABLE provider_tokens (
                party_id TEXT PRIMARY KEY REFERENCES parties(id) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                access_token TEXT,
                refresh_token TEXT,
                expires_at \(real)
            );
            """,
            // R15: the refill avoids songs this party played recently; only uris, pruned to the last 50.
            """
            CREATE TABLE played (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                uri TEXT NOT NULL,
                played_at \(real) NOT NULL\(dialect.rowIDColumn)
            );
            CREATE INDEX played_party ON played(party_id, played_at);
            """,
            // The monitor's device id was written and never read.
            """
            ALTER TABLE parties DROP COLUMN monitor_device_id;
            """,
            // Wrong host PINs evaluated over the party's life (a sweep stops at `SecretGuard.lifetimeLimit`).
            """
            ALTER TABLE parties ADD COLUMN wrong_pin_checks \(integer) NOT NULL DEFAULT 0;
            """,
            // Each party's events as a log, written in the transaction of the change they tell of. The
            // party's counter hands out the SSE ids (per party, in commit order: its row is locked until commit);
            // `message` is the `data:` JSON exactly as sent; the audience columns keep a scoped event scoped on replay.
            """
            ALTER TABLE parties ADD COLUMN last_event_seq \(integer) NOT NULL DEFAULT 0;
            CREATE TABLE party_events (\(eventColumns))\(dialect.withoutRowID);
            """,
            // 6 (R10a): the recording's ISRC, when the provider gives one, so versions count as duplicates.
            """
            ALTER TABLE queue_entries ADD COLUMN isrc TEXT;
            """,
            // 7 (R9b, R17a): the host's settings, and songs played per adder (a counter, not a history).
            """
            ALTER TABLE parties ADD COLUMN fair_queue \(integer) NOT NULL DEFAULT 0;
            ALTER TABLE parties ADD COLUMN veto_share \(real) NOT NULL DEFAULT 0;
            CREATE TABLE played_counts (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                adder TEXT NOT NULL,
                played \(integer) NOT NULL,
                PRIMARY KEY (party_id, adder)
            )\(dialect.withoutRowID);
            """,
            // 8: each entry's like count kept with it, changed with its votes. Counting the votes on every read
            // cost a like time in proportion to the likes before it (a song with 5,000 likes: 5,000 index steps a read).
            """
            ALTER TABLE queue_entries ADD COLUMN like_count \(integer) NOT NULL DEFAULT 0;
            UPDATE queue_entries SET like_count = (SELECT COUNT(*) FROM votes v WHERE v.entry_id = queue_entries.id);
            """,
            // 9: a party's version, for read caches in several processes (PostgreSQL keeps it moving with
            // triggers; SQLite, one writer, keys its caches by its connection's change counter and leaves it at 0).
            """
            ALTER TABLE parties ADD COLUMN version \(integer) NOT NULL DEFAULT 0;
            \(dialect.partyVersionTriggers)
            """,
            // 10 (R17a, R30): vetoes like votes; when each device was last active in a party (joined, added,
            // liked, vetoed: the veto's threshold counts them); bans by the entry the host pointed at, so the host
            // names no one and a second ban of the same entry finds it.
            """
            CREATE TABLE vetoes (
                entry_id \(integer) NOT NULL REFERENCES queue_entries(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                PRIMARY KEY (entry_id, device_id)
            )\(dialect.withoutRowID);
            CREATE TABLE guest_activity (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                seen_at \(real) NOT NULL,
                PRIMARY KEY (party_id, device_id)
            )\(dialect.withoutRowID);
            CREATE TABLE bans (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                entry_id \(integer) NOT NULL,
                adder TEXT NOT NULL,
                PRIMARY KEY (party_id, entry_id)
            )\(dialect.withoutRowID);
            CREATE INDEX bans_adder ON bans(party_id, adder);
            \(dialect.crowdVersionTriggers)
            """,
            // 11 (shared state): what one instance kept in memory, for several instances on one database:
            // limit counts in fixed buckets (`WindowBucket`), clients that proved a secret, TV pairings waiting to be
            // claimed, Spotify OAuth states and the key that signs them. SQLite (one instance) leaves them empty.
            """
            CREATE \(dialect.unlogged)TABLE limit_counts (
                name TEXT NOT NULL,
                key TEXT NOT NULL,
                bucket \(integer) NOT NULL,
                count \(integer) NOT NULL,
                leaves_at \(real) NOT NULL,
                PRIMARY KEY (name, key, bucket)
            )\(dialect.withoutRowID);
            CREATE INDEX limit_counts_leaves ON limit_counts(leaves_at);
            CREATE \(dialect.unlogged)TABLE proven_clients (
                scope TEXT NOT NULL,
                client TEXT NOT NULL,
                proven_at \(real) NOT NULL,
                PRIMARY KEY (scope, client)
            )\(dialect.withoutRowID);
            CREATE TABLE tv_pairings (
                secret TEXT PRIMARY KEY,
                code TEXT NOT NULL,
                network TEXT NOT NULL,
                expires_at \(real) NOT NULL,
                party_id TEXT,
                monitor_token TEXT
            );
            CREATE TABLE oauth_states (
                nonce TEXT PRIMARY KEY,
                party_id TEXT NOT NULL,
                source TEXT NOT NULL,
                installation_id TEXT,
                verifier TEXT NOT NULL,
                expires_at \(real) NOT NULL
            );
            CREATE INDEX oauth_states_party ON oauth_states(party_id, expires_at);
            CREATE TABLE cluster_keys (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            """,
            // 12: each instance's record of each party's player (`ClusterPresence`): its monitor streams, the
            // heartbeats and audible reports it got; the instance owning the party's timers reads them all.
            """
            CREATE \(dialect.unlogged)TABLE monitor_presence (
                party_id TEXT NOT NULL,
                instance TEXT NOT NULL,
                streams \(integer) NOT NULL,
                streams_until \(real) NOT NULL,
                last_heartbeat \(real),
                last_stream_closed \(real),
                reports \(integer) NOT NULL,
                heard_at \(real),
                position_ms \(integer),
                reported_at \(real),
                updated_at \(real) NOT NULL,
                PRIMARY KEY (party_id, instance)
            )\(dialect.withoutRowID);
            """,
            // 13: what every instance needs of the party's player: its Spotify SDK device and the monitor tokens
            // it replaced. No foreign key: written on a session of its own, which must never wait for a party row the
            // request's own transaction has locked.
            """
            CREATE TABLE party_players (
                party_id TEXT PRIMARY KEY,
                sdk_device_id TEXT,
                retired_monitor_tokens TEXT NOT NULL DEFAULT ''
            );
            """,
            // 14: the address of the original web player registered as the party's device (it opens its
            // stream without a monitor token, on whichever instance the balancer picks): every instance counts its
            // streams.
            "ALTER TABLE party_players ADD COLUMN web_player_address TEXT;",
            // 15: the `deviceActive` last announced (`device-changed`), so whichever instance sees the change
            // first announces it, once for the cluster.
            "ALTER TABLE party_players ADD COLUMN announced_active \(integer);",
            // 16, R20a: why a stalled song is not heard, stored with the playback (any instance, and the
            // server after a restart, tells it).
            "ALTER TABLE parties ADD COLUMN stall_reason TEXT;",
            // 17: the event log as a table of rows appended in rowid order, its key an index beside it. Without
            // a rowid the log is one tree of whole events keyed by party and number: every few commits of a like storm
            // split its last page among three (SQLite's append shortcut is for rowid tables), 5 pages written per commit
            // for the log instead of 2-4, about 4% of the likes. PostgreSQL's tables are heaps either way.
            """
            CREATE TABLE party_events_appended (\(eventColumns));
            INSERT INTO party_events_appended (party_id, seq, type, message, audience_source, audience_installation_id, created_at)
                SELECT party_id, seq, type, message, audience_source, audience_installation_id, created_at FROM party_events ORDER BY party_id, seq;
            DROP TABLE party_events;
            ALTER TABLE party_events_appended RENAME TO party_events;
            """,
            // 18, R24a: the host page's token (a long secret no budget stands in front of); wrong `host-join` PINs
            // counted apart from the party's own budget (they only hide the party from `host-join`); the one-time
            // links of the server's console; clients that proved a PIN kept through a crash on both databases.
            """
            ALTER TABLE parties ADD COLUMN host_token TEXT;
            ALTER TABLE parties ADD COLUMN host_join_misses \(integer) NOT NULL DEFAULT 0;
            CREATE TABLE host_recoveries (
                token TEXT PRIMARY KEY,
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                expires_at \(real) NOT NULL
            );
            \(dialect.logged("proven_clients"))
            """,
            // 19: who the party's guests are: each device id the party admitted (`PartyState.admitGuest`), from which
            // address; the devices active before are its guests already. Activity is counted by time (R17a's window);
            // a ban keeps the banned guest's address, so new identities from it are refused too (R30).
            """
            CREATE TABLE guests (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                address TEXT NOT NULL,
                admitted_at \(real) NOT NULL,
                PRIMARY KEY (party_id, device_id)
            )\(dialect.withoutRowID);
            INSERT INTO guests (party_id, device_id, address, admitted_at) SELECT party_id, device_id, '', seen_at FROM guest_activity;
            CREATE INDEX guest_activity_seen ON guest_activity(party_id, seen_at);
            ALTER TABLE bans ADD COLUMN address TEXT;
            CREATE INDEX bans_address ON bans(party_id, address);
            """,
            // 20: Spotify logins the host began (with its PIN or token) are kept apart from those anybody began, so
            // guests never push the host's pending login out (`SpotifyLoginState`); nil: the party's own pool.
            "ALTER TABLE oauth_states ADD COLUMN pool TEXT;",
            // 21, R33: the host's `history` setting and the songs the party heard while it was on (the song, when it
            // started, its likes and how it ended; never who added it), until the party's purge (R6).
            """
            ALTER TABLE parties ADD COLUMN history \(integer) NOT NULL DEFAULT 0;
            CREATE TABLE played_songs (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                uri TEXT NOT NULL,
                track_id TEXT NOT NULL,
                name TEXT NOT NULL,
                artists TEXT NOT NULL,
                album TEXT NOT NULL,
                image_url TEXT,
                duration_ms \(integer) NOT NULL,
                started_at \(real) NOT NULL,
                like_count \(integer) NOT NULL,
                ended TEXT NOT NULL\(dialect.rowIDColumn)
            );
            CREATE INDEX played_songs_party ON played_songs(party_id, started_at);
            """,
            // 22, R34: the host's co-host links: the token (a secret, unique across parties), a short handle the host's
            // list and the events name it by, when it was first used and when it was revoked; gone with the party (R6).
            """
            CREATE TABLE cohosts (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                id TEXT NOT NULL,
                token TEXT NOT NULL,
                created_at \(real) NOT NULL,
                joined_at \(real),
                revoked_at \(real),
                PRIMARY KEY (party_id, id)
            )\(dialect.withoutRowID);
            CREATE UNIQUE INDEX cohosts_token ON cohosts(token);
            """,
            // 23, R35: the host's `approval` setting; guests' adds waiting for the host (the song and who asked, which
            // never leaves the server); the guests the host approved a song of (`new-guests` lets them add at once).
            // Both go with the party (R5 empties the waiting songs, R6's purge the rest).
            """
            ALTER TABLE parties ADD COLUMN approval TEXT NOT NULL DEFAULT 'off';
            CREATE TABLE pending_songs (
                id \(dialect.autoincrementPrimaryKey),
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                uri TEXT NOT NULL,
                track_id TEXT NOT NULL,
                name TEXT NOT NULL,
                artists TEXT NOT NULL,
                album TEXT NOT NULL,
                image_url TEXT,
                duration_ms \(integer) NOT NULL,
                isrc TEXT,
                requested_at \(real) NOT NULL,
                added_by TEXT NOT NULL
            );
            CREATE INDEX pending_songs_party ON pending_songs(party_id, added_by);
            CREATE TABLE approved_adders (
                party_id TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
                adder TEXT NOT NULL,
                PRIMARY KEY (party_id, adder)
            )\(dialect.withoutRowID);
            \(dialect.versionTrigger(forChildTable: "pending_songs"))
            \(dialect.versionTrigger(forChildTable: "approved_adders"))
            """,
            // 24, R36: the host's `nicknames` setting and each guest's nickname with its two blacklist folds (a
            // nickname is the party's once, in either fold). Setting one moves the party's version (the queue shows
            // it); admitting a guest does not.
            """
            ALTER TABLE parties ADD COLUMN nicknames \(integer) NOT NULL DEFAULT 0;
            ALTER TABLE guests ADD COLUMN nickname TEXT;
            ALTER TABLE guests ADD COLUMN nickname_fold TEXT;
            ALTER TABLE guests ADD COLUMN nickname_fold_written TEXT;
            CREATE UNIQUE INDEX guests_nickname ON guests(party_id, nickname_fold) WHERE nickname_fold IS NOT NULL;
            CREATE INDEX guests_nickname_written ON guests(party_id, nickname_fold_written) WHERE nickname_fold_written IS NOT NULL;
            \(dialect.versionTrigger(forChildTable: "guests", whenColumnChanges: "nickname"))
            """,
            // 25: each statement that changes a party's rows moves its version once, not once per row
            // (`SQLDialect.statementVersionTriggers`; nothing on SQLite).
            """
            \(dialect.statementVersionTriggers)
            """,
            // 26: a party's version moves once per transaction (`SQLDialect.versionOncePerTransaction`; nothing on SQLite).
            """
            \(dialect.versionOncePerTransaction)
            """,
        ]
    }
}
