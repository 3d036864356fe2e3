"""The games' tables (the platform's own): their migrations, one numbered list for both
backends (:class:`~yahtzee.storage.schema.Migrations`, owner ``games``).

The levels are :mod:`yahtzee.storage.sql`'s. SQLite's statements and PostgreSQL's differ
(triggers in SQL or PL/pgSQL, SQLite's ``CHECK`` edits), so each level holds both; a level
PostgreSQL shipped together with the one before is empty there (level 2: its migration 1
brought levels 1 and 2, with the heartbeat of level 2 coming at level 4). Shipped
statements are never edited: a change is a new level at the end.
"""

from __future__ import annotations

from yahtzee.storage.schema import Migration, Migrations

#: Schema level 7 (K2), after the ``kind`` and ``room_id`` columns are added: each game
#: stored before it gets the kind the code inferred then. Both backends run these once, in
#: their migration to level 7 (shipped: never edit them; they name the kinds of that day).
#: The ``start`` event's data is compact JSON (:func:`~yahtzee.storage.sql.dumps`), where a
#: ``"date":`` key only ever is the day's challenge's.
KIND_FROM_OLD_GAMES = (
    "UPDATE games SET kind = mode WHERE mode <> 'solo'",
    "UPDATE games SET kind = 'room', room_id = substr(player_id, 6) WHERE player_id LIKE 'room:%'",
    "UPDATE games SET kind = 'daily' WHERE mode = 'solo' AND EXISTS (SELECT 1 FROM events e "
    "WHERE e.game_id = games.id AND e.seq = 1 AND e.kind = 'start' "
    """AND e.data LIKE '%"date":%')""",
)

# SQLite's statements of each level, in order.
SQLITE_LEVELS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            mode TEXT NOT NULL CHECK (mode IN ('solo', 'vs_computer')),
            difficulty TEXT,
            status TEXT NOT NULL CHECK (status IN ('in_progress', 'finished', 'abandoned')),
            version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            finished_at TEXT,
            result TEXT CHECK (result IN ('win', 'loss', 'draw', 'solo')),
            human_total INTEGER,
            computer_total INTEGER,
            new_record INTEGER
        )""",
        # At most one unfinished game per player, enforced by the database itself.
        """CREATE UNIQUE INDEX games_one_unfinished ON games (player_id)
            WHERE status = 'in_progress'""",
        """CREATE INDEX games_finished ON games (player_id, finished_at)
            WHERE status = 'finished'""",
        """CREATE TABLE events (
            game_id TEXT NOT NULL REFERENCES games (id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID""",
        """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
    ),
    # v2 (F5): the one exception to the append-only log, stated in the schema itself. A
    # game abandoned before its first roll may be deleted whole (pruning, see
    # SQLiteStorage.prune_unplayed); any other event or game still refuses DELETE, whoever
    # issues it. The condition holds for every row while such a game's events are deleted
    # (it has no roll event to lose), then the game row goes once it has no events left.
    (
        "DROP TRIGGER events_no_delete",
        """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
            WHEN (SELECT status FROM games WHERE id = OLD.game_id) IS NOT 'abandoned'
                OR EXISTS (SELECT 1 FROM events
                           WHERE game_id = OLD.game_id AND kind = 'roll')
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        """CREATE TRIGGER games_no_delete BEFORE DELETE ON games
            WHEN OLD.status IS NOT 'abandoned'
                OR EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id)
            BEGIN SELECT RAISE(ABORT, 'only an unplayed abandoned game can be deleted'); END""",
        # F6: one row that /api/health rewrites to learn whether writes work again.
        """CREATE TABLE heartbeat (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            at TEXT NOT NULL
        )""",
    ),
    # v3 (F5 across processes): the rate limits every process shares (one number per
    # bucket, see storage.base.Charge), and the live server processes, by which each
    # process divides its share of the per-player action limit (server/limits.py).
    (
        """CREATE TABLE rate_buckets (
            bucket TEXT NOT NULL,
            key TEXT NOT NULL,
            full_at REAL NOT NULL,
            PRIMARY KEY (bucket, key)
        ) WITHOUT ROWID""",
        """CREATE TABLE server_processes (
            id TEXT PRIMARY KEY,
            seen_at REAL NOT NULL
        ) WITHOUT ROWID""",
    ),
    # v4 (issue 22.6): games still in progress that never had a roll may be pruned too
    # (a start event and nothing else, unchanged for days: nothing a player would lose).
    (
        "DROP TRIGGER events_no_delete",
        """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
            WHEN COALESCE((SELECT status FROM games WHERE id = OLD.game_id), '')
                    NOT IN ('abandoned', 'in_progress')
                OR EXISTS (SELECT 1 FROM events
                           WHERE game_id = OLD.game_id AND kind = 'roll')
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        "DROP TRIGGER games_no_delete",
        """CREATE TRIGGER games_no_delete BEFORE DELETE ON games
            WHEN OLD.status NOT IN ('abandoned', 'in_progress')
                OR EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id)
            BEGIN SELECT RAISE(ABORT, 'only an unplayed game can be deleted'); END""",
    ),
    # v5 (T1, 多人同屏): a table game's mode and result. SQLite cannot alter a CHECK, so the
    # stored CREATE TABLE text is edited in place (SQLite's documented way for a change
    # every row already meets: https://sqlite.org/lang_altertable.html, "other kinds of
    # table schema changes"); RESET re-reads the schema in this connection, and the
    # table created and dropped bumps the schema cookie so every other connection does.
    (
        "PRAGMA writable_schema = ON",
        """UPDATE sqlite_schema SET sql = replace(replace(sql,
                'CHECK (mode IN (''solo'', ''vs_computer''))',
                'CHECK (mode IN (''solo'', ''vs_computer'', ''table''))'),
                'CHECK (result IN (''win'', ''loss'', ''draw'', ''solo''))',
                'CHECK (result IN (''win'', ''loss'', ''draw'', ''solo'', ''table''))')
            WHERE type = 'table' AND name = 'games'""",
        "PRAGMA writable_schema = RESET",
        "CREATE TABLE schema_cookie_bump (x)",
        "DROP TABLE schema_cookie_bump",
    ),
    # v6 (schema level 6, L10): the tutorial's mode, the same way as v5.
    (
        "PRAGMA writable_schema = ON",
        """UPDATE sqlite_schema SET sql = replace(sql,
                'CHECK (mode IN (''solo'', ''vs_computer'', ''table''))',
                'CHECK (mode IN (''solo'', ''vs_computer'', ''table'', ''tutorial''))')
            WHERE type = 'table' AND name = 'games'""",
        "PRAGMA writable_schema = RESET",
        "CREATE TABLE schema_cookie_bump (x)",
        "DROP TABLE schema_cookie_bump",
    ),
    # v7 (schema level 7, K2): what each game is, and a room's game's room; the games
    # stored before get the kind the code inferred then (KIND_FROM_OLD_GAMES). No
    # CHECK on the kind: its one list is yahtzee.game.GameKind (every read parses it), so
    # a feature's new kind of game needs no migration (v5 and v6 show what a CHECK costs).
    (
        "ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'solo'",
        "ALTER TABLE games ADD COLUMN room_id TEXT",
        *KIND_FROM_OLD_GAMES,
    ),
    # v8 (schema level 8, I4 删除我的数据): the second exception to the append-only log,
    # stated in the schema too. A game listed in game_erasures (written in the very
    # transaction that erases a player's data, and emptied by it) may be deleted whole,
    # and a room game's start event may be rewritten (a leaving seat's name removed).
    (
        "CREATE TABLE game_erasures (game_id TEXT PRIMARY KEY) WITHOUT ROWID",
        "DROP TRIGGER events_no_update",
        """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
            WHEN NOT EXISTS (SELECT 1 FROM game_erasures WHERE game_id = OLD.game_id)
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        "DROP TRIGGER events_no_delete",
        """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
            WHEN (COALESCE((SELECT status FROM games WHERE id = OLD.game_id), '')
                    NOT IN ('abandoned', 'in_progress')
                OR EXISTS (SELECT 1 FROM events
                           WHERE game_id = OLD.game_id AND kind = 'roll'))
                AND NOT EXISTS (SELECT 1 FROM game_erasures WHERE game_id = OLD.game_id)
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        "DROP TRIGGER games_no_delete",
        """CREATE TRIGGER games_no_delete BEFORE DELETE ON games
            WHEN (OLD.status NOT IN ('abandoned', 'in_progress')
                OR EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id))
                AND NOT EXISTS (SELECT 1 FROM game_erasures WHERE game_id = OLD.id)
            BEGIN SELECT RAISE(ABORT, 'only an unplayed game can be deleted'); END""",
    ),
    # v9 (schema level 9, issue 36: one name per concept): a mode is who sits at a game,
    # what the game is its kind; a tutorial (kind 'tutorial' since v7) is of mode 'solo',
    # and the mode's CHECK allows the three modes (edited in place as v5 and v6 did).
    (
        "UPDATE games SET mode = 'solo' WHERE mode = 'tutorial'",
        "PRAGMA writable_schema = ON",
        """UPDATE sqlite_schema SET sql = replace(sql,
                'CHECK (mode IN (''solo'', ''vs_computer'', ''table'', ''tutorial''))',
                'CHECK (mode IN (''solo'', ''vs_computer'', ''table''))')
            WHERE type = 'table' AND name = 'games'""",
        "PRAGMA writable_schema = RESET",
        "CREATE TABLE schema_cookie_bump (x)",
        "DROP TABLE schema_cookie_bump",
    ),
    # v10 (schema level 10, issue 36): a room's game has its room stored once, as its
    # owner ('room:<id>', which level 7 copied into room_id): the platform's table keeps no
    # feature's column (the game's id begins with the room's only as nginx's routing hint).
    ("ALTER TABLE games DROP COLUMN room_id",),
    # v11 (schema level 11, F24): how many times the game's seats changed outside its log (a
    # seat's name erased, I4; a seat holder's player merged into another, I1). A cached
    # position is good only for the version *and* this serial it was made at, and every
    # append is conditional on both: another process's cache cannot bring an erased
    # name back (storage.base.GameRecord.seat_serial). And an index of the games by
    # player (F27: whether a player keeps any game, the pruning of devices that never
    # played, the merge's and the deletion's moves, without a scan of every game), and of
    # the rate-limit buckets by key (the deletion of a player's, idem).
    (
        "ALTER TABLE games ADD COLUMN seat_serial INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX games_player ON games (player_id)",
        "CREATE INDEX rate_buckets_key ON rate_buckets (key)",
    ),
)

# PostgreSQL's first migration: levels 1 and 2 (the heartbeat came with level 4).
_POSTGRES_FIRST: tuple[str, ...] = (
    """CREATE TABLE games (
            n BIGINT GENERATED ALWAYS AS IDENTITY,
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            mode TEXT NOT NULL CHECK (mode IN ('solo', 'vs_computer')),
            difficulty TEXT,
            status TEXT NOT NULL CHECK (status IN ('in_progress', 'finished', 'abandoned')),
            version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            finished_at TEXT,
            result TEXT CHECK (result IN ('win', 'loss', 'draw', 'solo')),
            human_total INTEGER,
            computer_total INTEGER,
            new_record BOOLEAN
        )""",
    # At most one unfinished game per player, enforced by the database itself.
    """CREATE UNIQUE INDEX games_one_unfinished ON games (player_id)
            WHERE status = 'in_progress'""",
    """CREATE INDEX games_finished ON games (player_id, finished_at)
            WHERE status = 'finished'""",
    """CREATE TABLE events (
            game_id TEXT NOT NULL REFERENCES games (id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (game_id, seq)
        )""",
    # The one exception to the append-only log (F5 pruning, as on SQLite): a game
    # abandoned before its first roll may be deleted whole, its events first, then
    # its row. Anything else refuses DELETE, whoever issues it; UPDATE and TRUNCATE
    # always refuse.
    """CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE'
                    AND (SELECT status FROM games WHERE id = OLD.game_id) = 'abandoned'
                    AND NOT EXISTS (SELECT 1 FROM events
                                    WHERE game_id = OLD.game_id AND kind = 'roll') THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP;
            END $$""",
    """CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
            FOR EACH ROW EXECUTE FUNCTION events_append_only()""",
    """CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()""",
    """CREATE FUNCTION games_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' AND OLD.status = 'abandoned'
                    AND NOT EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id) THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'only an unplayed abandoned game can be deleted (% refused)',
                    TG_OP;
            END $$""",
    """CREATE TRIGGER games_no_delete BEFORE DELETE ON games
            FOR EACH ROW EXECUTE FUNCTION games_no_delete()""",
    """CREATE TRIGGER games_no_truncate BEFORE TRUNCATE ON games
            FOR EACH STATEMENT EXECUTE FUNCTION games_no_delete()""",
)

# PostgreSQL's statements of levels 3-9, in order (each comment's v<n> is its old
# migration n, before the levels were numbered alike).
_POSTGRES_LATER: tuple[tuple[str, ...], ...] = (
    # v2 (F5 across processes): the rate limits every process shares (one number per
    # bucket, see storage.base.Charge), and the live server processes, by which each
    # process divides its share of the per-player action limit (server/limits.py).
    # UNLOGGED: no WAL, so a token costs no disk flush; after a crash of the database
    # server PostgreSQL empties them, which only forgives the limits for a minute.
    (
        """CREATE UNLOGGED TABLE rate_buckets (
            bucket TEXT NOT NULL,
            key TEXT NOT NULL,
            full_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (bucket, key)
        )""",
        """CREATE UNLOGGED TABLE server_processes (
            id TEXT PRIMARY KEY,
            seen_at DOUBLE PRECISION NOT NULL
        )""",
    ),
    # v3 (schema level 4, issue 22.6): games still in progress that never had a roll may
    # be pruned too; and the heartbeat row that /api/health's probe rewrites (level 2 on
    # SQLite), so that the probe is a write here as well.
    (
        """CREATE OR REPLACE FUNCTION events_append_only() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE'
                    AND (SELECT status FROM games WHERE id = OLD.game_id)
                        IN ('abandoned', 'in_progress')
                    AND NOT EXISTS (SELECT 1 FROM events
                                    WHERE game_id = OLD.game_id AND kind = 'roll') THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP;
            END $$""",
        """CREATE OR REPLACE FUNCTION games_no_delete() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' AND OLD.status IN ('abandoned', 'in_progress')
                    AND NOT EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id) THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'only an unplayed game can be deleted (% refused)', TG_OP;
            END $$""",
        """CREATE TABLE heartbeat (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            at TEXT NOT NULL
        )""",
    ),
    # v4 (schema level 5, T1 多人同屏): a table game's mode and result.
    (
        """ALTER TABLE games DROP CONSTRAINT games_mode_check,
            ADD CONSTRAINT games_mode_check CHECK (mode IN ('solo', 'vs_computer', 'table'))""",
        """ALTER TABLE games DROP CONSTRAINT games_result_check,
            ADD CONSTRAINT games_result_check
                CHECK (result IN ('win', 'loss', 'draw', 'solo', 'table'))""",
    ),
    # v5 (schema level 6, L10): the tutorial's mode.
    (
        """ALTER TABLE games DROP CONSTRAINT games_mode_check,
            ADD CONSTRAINT games_mode_check
                CHECK (mode IN ('solo', 'vs_computer', 'table', 'tutorial'))""",
    ),
    # v6 (schema level 7, K2): what each game is, and a room's game's room; the games
    # stored before get the kind the code inferred then (KIND_FROM_OLD_GAMES). The
    # default only fills the old rows (every insert names the kind). No CHECK, as on
    # SQLite: the kinds' one list is yahtzee.game.GameKind.
    (
        """ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'solo',
            ADD COLUMN room_id TEXT""",
        *KIND_FROM_OLD_GAMES,
        "ALTER TABLE games ALTER COLUMN kind DROP DEFAULT",
    ),
    # v7 (schema level 8, I4 删除我的数据): a game listed in game_erasures (written and
    # emptied by the transaction that erases a player's data) may be deleted whole, and a
    # room game's start event rewritten (a leaving seat's name removed), as on SQLite.
    (
        "CREATE TABLE game_erasures (game_id TEXT PRIMARY KEY)",
        """CREATE OR REPLACE FUNCTION events_append_only() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN
                    IF EXISTS (SELECT 1 FROM game_erasures WHERE game_id = OLD.game_id) THEN
                        IF TG_OP = 'UPDATE' THEN
                            RETURN NEW;
                        END IF;
                        RETURN OLD;
                    END IF;
                END IF;
                IF TG_OP = 'DELETE' THEN
                    IF (SELECT status FROM games WHERE id = OLD.game_id)
                            IN ('abandoned', 'in_progress')
                        AND NOT EXISTS (SELECT 1 FROM events
                                        WHERE game_id = OLD.game_id AND kind = 'roll') THEN
                        RETURN OLD;
                    END IF;
                END IF;
                RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP;
            END $$""",
        """CREATE OR REPLACE FUNCTION games_no_delete() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    IF EXISTS (SELECT 1 FROM game_erasures WHERE game_id = OLD.id) THEN
                        RETURN OLD;
                    END IF;
                    IF OLD.status IN ('abandoned', 'in_progress')
                        AND NOT EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id) THEN
                        RETURN OLD;
                    END IF;
                END IF;
                RAISE EXCEPTION 'only an unplayed game can be deleted (% refused)', TG_OP;
            END $$""",
    ),
    # v8 (schema level 9): a tutorial is of mode 'solo' (its kind says tutorial), and the
    # mode's CHECK allows the three modes, as on SQLite.
    (
        "UPDATE games SET mode = 'solo' WHERE mode = 'tutorial'",
        """ALTER TABLE games DROP CONSTRAINT games_mode_check,
            ADD CONSTRAINT games_mode_check CHECK (mode IN ('solo', 'vs_computer', 'table'))""",
    ),
    # v9 (schema level 10): a room's game has its room stored once, as its owner.
    ("ALTER TABLE games DROP COLUMN room_id",),
    # v10 (schema level 11, F24, F27): the games' seat serial, their index by player and
    # the buckets' by key, as on SQLite.
    (
        "ALTER TABLE games ADD COLUMN seat_serial INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX games_player ON games (player_id)",
        "CREATE INDEX rate_buckets_key ON rate_buckets (key)",
    ),
)

#: The games' migrations: level n on both backends is version n of owner ``games``.
GAMES = Migrations(
    "games",
    tuple(
        Migration(lite, pg)
        for lite, pg in zip(SQLITE_LEVELS, (_POSTGRES_FIRST, (), *_POSTGRES_LATER), strict=True)
    ),
)
