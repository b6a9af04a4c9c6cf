"""fieldnotes: Mira's Rust note-taking CLI, September-October 2026.

A hand-written history for the bundled sample data: Claude Code sessions in the repository
plus ChatGPT conversations where design questions were asked in a browser. The story: a clap 4
CLI over markdown notes, a rusqlite/FTS5 index (hyphenated queries, then the trigram tokenizer),
tags, git2 sync with SSH-agent trouble and conflict copies, "database is locked" twice, a
two-digit-year date bug, the thiserror refactor, a 20k-note listing fix and cargo-dist releases.

The turn constructors (turns.py) only build the dicts build.py expects; every word of
content is written out.
"""

from turns import A, U, W, bash, edit, read, write

PROJECT = {"name": "fieldnotes", "cwd": "/home/mira/src/fieldnotes", "git_branch": "main"}


# ---------------------------------------------------------------------------------------------
# 2026-09-05 ChatGPT: do I need a database at all?
# ---------------------------------------------------------------------------------------------

S01 = {
    "session_id": "6a0f3c2e-91d4-4b7e-a5c3-0e8d2f71b954",
    "format": "chatgpt",
    "title": "Plain markdown files vs embedded DB for notes CLI",
    "start": "2026-09-05T19:42:00Z",
    "turns": [
        U("I'm building a small CLI notes tool in Rust for myself. Notes are markdown files with "
          "yaml front matter in one folder, around 3-4k notes today (years of stuff imported "
          "from Simplenote and Bear), could grow. I want fast full text search, listing by "
          "date, filtering by tags, and later syncing the folder through git. Do I even need a "
          "database, or is ripgrep over the folder good enough?", "cg-embedded-db-1"),
        A("""Short answer: keep the markdown files as the source of truth, but put a small index next to them. Plain ripgrep gets you surprisingly far, and you hit its limits exactly on the features you listed.

**Where plain files + ripgrep are fine**

- Substring/regex search over 4k files is fast: ripgrep on a warm page cache does that in tens of milliseconds.
- Zero schema, zero migrations, nothing to get out of sync. Every editor and every sync tool understands a folder of `.md` files.

**Where it starts to hurt**

1. **Ranking.** ripgrep tells you *which* files match, not which match *best*. With 4k notes a common word returns hundreds of files in directory order. A full-text index gives you BM25 ranking and can weight the title above the body.
2. **Listing by date and filtering by tag.** Both need the front matter of *every* note. Without an index you open and YAML-parse every file on every `list`. That's fine at 500 notes and noticeably slow at 20k, and it gets worse on a cold cache or a network drive.
3. **Snippets and highlighting.** Doable with ripgrep's context output, but you end up reimplementing what an FTS engine already does.
4. **Combined queries** ("notes tagged `rust` mentioning `lifetime`, newest first") become a pipeline of greps and sorts.

**The hybrid I'd recommend**

- Files stay canonical. The tool never stores anything *only* in the database.
- An index database caches, per note: path, title, tags, created date, mtime/size, and the body for full-text search.
- Every command does a cheap staleness check first (stat the files, compare mtime/size) and reindexes what changed. A `reindex --full` command rebuilds everything from scratch, so deleting the index is always safe.

That gives you git-friendly storage and database-quality queries, and the index is disposable: if it ever gets corrupted or the schema changes, you throw it away and rebuild.

For the engine, SQLite with its FTS5 extension is the obvious first candidate for a single-user CLI: one file, no server, ranking and snippets built in, and ordinary SQL for the date and tag side. Happy to compare it with the alternatives if you're weighing something else."""),
        W(3),
        U("ok say I go with an index. rusqlite vs sqlx vs something pure rust like redb + "
          "tantivy? I don't want async anywhere in this thing, it's a CLI", "cg-embedded-db-2"),
        A("""Given "no async" and "CLI", I'd go with **rusqlite with the `bundled` feature**. Here's how the others compare for this use case.

**rusqlite (recommended)**
- Synchronous, thin, mature. `Connection`, `prepare`, `query_map`, transactions: that's all you need.
- `features = ["bundled"]` compiles SQLite from source into your binary. This matters more than it sounds:
  - FTS5 is compiled in (the system SQLite on some distros lacks it, or ships an old version).
  - You get the same SQLite version on macOS, Linux and Windows, so tokenizers and pragmas behave the same everywhere.
  - Cross-compiling release binaries is easier because you don't link a system library.
- Migrations: either the `rusqlite_migration` crate or a 20-line runner using `PRAGMA user_version` and numbered `.sql` files pulled in with `include_str!`.

**sqlx**
- Async-first: you'd pull in tokio just to talk to a local file.
- The compile-time checked queries need a database at build time (`DATABASE_URL` or an offline `.sqlx` cache). Nice for web services, friction for a small CLI.

**redb**
- A good embedded key-value store, but it's only that: no full-text search, no SQL. You'd build the tag and date indexes yourself and still need a search engine.

**tantivy**
- Excellent search engine (Lucene-like), better relevance tuning and faceting than FTS5.
- But it's a second storage system. You'd likely still want SQLite or redb for the structured side (paths, mtimes, tags), so two stores to keep consistent.
- Its index is a directory of segment files with its own writer lock and commit semantics, and it adds a noticeable chunk to binary size and compile time.
- It's worth it when you have millions of documents or need custom analyzers. At 4k-20k notes FTS5 is plenty.

**Verdict:** rusqlite + bundled SQLite + FTS5, one index file, synchronous code everywhere. If you ever outgrow FTS5 relevance you can swap the search part for tantivy later, because the files are the source of truth and the index is rebuildable."""),
        W(6),
        U("if the files are the source of truth how do I keep the index honest? I edit notes "
          "in vim and sometimes obsidian on the same folder, outside the tool", "cg-embedded-db-3"),
        A("""Treat the index as a cache with a cheap validity check. The pattern:

**1. Store enough to detect change**

For each note row keep `path`, `mtime` (seconds or nanoseconds), `size`, and optionally a content hash (blake3 or xxhash of the file bytes). mtime+size catches nearly everything; the hash is a tiebreaker for tools that preserve mtime, or for `git checkout`, which sets mtime to "now" anyway.

**2. Stale scan at the start of each command**

```text
walk notes_dir (skip .git, .obsidian, hidden dirs)
  for each *.md: stat it
    not in index            -> parse + insert
    mtime/size differ       -> (hash differs?) parse + update
  rows whose path was not seen -> delete
```

A stat-only walk over 4k files takes a few milliseconds, so it's fine to do on every `list` or `search`. Do the inserts/updates in **one transaction**; SQLite is slow when every statement autocommits.

**3. A full rebuild command**

`fieldnotes reindex --full` drops and recreates the tables from the files. Use it after schema migrations, after changing the FTS tokenizer, or when in doubt. If that command exists and works, the index can never really be "wrong" for long.

**4. Keep the index outside the synced folder**

Put the database somewhere like `~/.local/share/fieldnotes/index.db`, not inside the notes folder. If it's inside and the folder is a git repo, you'll end up committing a binary database (and its journal files) or fighting `.gitignore`. Obsidian and other tools will also see it. The index is per-machine anyway: each machine rebuilds its own from the files.

**5. Things that only live in the DB**

If you later add things that can't be derived from files (search history, "last opened"), keep them in separate tables that `reindex --full` doesn't touch, and accept that they're per machine.

Optional extra: a filesystem watcher (`notify` crate) could keep the index fresh continuously, but for a CLI that runs for 50 ms at a time, the stale scan is simpler and has no daemon to babysit."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-07 Claude Code: scaffold, schema + migrations, config path, nextest
# ---------------------------------------------------------------------------------------------

S02 = {
    "session_id": "b3e71d90-4c2a-4f6e-8d15-2a9c6e0f7b31",
    "start": "2026-09-07T09:15:00Z",
    "turns": [
        U("new project, I already did cargo init. I want a notes CLI called fieldnotes: "
          "subcommands new, list, search, edit, sync. clap 4 derive. markdown notes live in a "
          "folder (default ~/notes), config at ~/.config/fieldnotes/config.toml. index is sqlite "
          "via rusqlite (bundled) with fts5. Just scaffold the CLI + module layout for now, stubs "
          "are fine, make it compile", "fn-scaffold-1"),
        bash("cargo add clap --features derive,env && cargo add rusqlite --features bundled "
             "&& cargo add serde --features derive && cargo add serde_yaml toml anyhow chrono dirs 2>&1 | grep Adding",
             "Add dependencies", r"""      Adding clap v4.5.48 to dependencies
      Adding rusqlite v0.32.1 to dependencies
      Adding serde v1.0.226 to dependencies
      Adding serde_yaml v0.9.34+deprecated to dependencies
      Adding toml v0.8.23 to dependencies
      Adding anyhow v1.0.99 to dependencies
      Adding chrono v0.4.42 to dependencies
      Adding dirs v6.0.0 to dependencies"""),
        write("/home/mira/src/fieldnotes/src/cli/mod.rs", r"""//! Command-line surface: argument parsing only. Behaviour lives in the library modules.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Plain-text notes with full-text search
#[derive(Debug, Parser)]
#[command(name = "fieldnotes", version, about)]
pub struct Cli {
    /// Use this config file instead of ~/.config/fieldnotes/config.toml
    #[arg(long, global = true, env = "FIELDNOTES_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a note and open it in $EDITOR
    New { title: Vec<String>, #[arg(short, long)] tag: Vec<String> },
    /// List notes, newest first
    List { #[arg(short, long)] tag: Option<String>, #[arg(short = 'n', long, default_value_t = 50)] limit: usize },
    /// Full-text search
    Search { query: Vec<String>, #[arg(short = 'n', long, default_value_t = 20)] limit: usize },
    /// Open the best match in $EDITOR
    Edit { query: Vec<String> },
    /// Commit and push the notes folder
    Sync,
}
"""),
        bash("mkdir -p src/store src/sync && touch src/store/fts.rs src/sync/mod.rs src/frontmatter.rs src/config.rs "
             "&& echo 'pub mod fts;' > src/store/mod.rs && cargo build 2>&1 | tail -2 && cargo run -q -- --help",
             "Stub modules, build, check help", r"""   Compiling fieldnotes v0.1.0 (/home/mira/src/fieldnotes)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 38.12s
Plain-text notes with full-text search

Usage: fieldnotes [OPTIONS] <COMMAND>

Commands:
  new     Create a note and open it in $EDITOR
  list    List notes, newest first
  search  Full-text search
  edit    Open the best match in $EDITOR
  sync    Commit and push the notes folder
  help    Print this message or the help of the given subcommand(s)

Options:
      --config <CONFIG>  Use this config file instead of ~/.config/fieldnotes/config.toml [env: FIELDNOTES_CONFIG=]
  -h, --help             Print help
  -V, --version          Print version"""),
        A("""Scaffold builds. `src/cli/mod.rs` has `Cli` (global `--config`, also read from `FIELDNOTES_CONFIG`) and the five subcommands as `todo!()` stubs; empty modules for `store` (+ `fts`), `sync`, `frontmatter`, `config`.

Deps: clap 4.5 (derive, env), rusqlite 0.32 with `bundled` (FTS5 compiled in, same SQLite everywhere; that's why the first build takes ~40 s), serde, serde_yaml, toml, anyhow, chrono, dirs.

Heads-up: `serde_yaml` is published as `0.9.34+deprecated` (archived upstream). Fine for reading front matter; `serde_norway` is a near drop-in fork if you ever want a maintained one."""),
        W(4),
        U("now the schema. notes table + an fts5 external content table kept in sync with "
          "triggers. use PRAGMA user_version for migrations, numbered sql files in migrations/",
          "fn-migrations-1"),
        write("/home/mira/src/fieldnotes/migrations/0001_init.sql", r"""-- 0001: notes and their full-text index (external content: the text lives only in notes).
CREATE TABLE notes (
    id      INTEGER PRIMARY KEY,
    path    TEXT NOT NULL UNIQUE,   -- relative to notes_dir
    title   TEXT NOT NULL,
    created TEXT,                   -- ISO date from front matter
    mtime   INTEGER NOT NULL,       -- for the stale scan
    size    INTEGER NOT NULL,
    body    TEXT NOT NULL
);

CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, body, content = 'notes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', new.id, new.title, new.body);
    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
"""),
        write("/home/mira/src/fieldnotes/src/store/migrations.rs", r"""//! Numbered SQL files, applied past `PRAGMA user_version`, one transaction each.
use rusqlite::Connection;

const MIGRATIONS: &[(&str, &str)] = &[("0001_init", include_str!("../../migrations/0001_init.sql"))];

pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let current: u32 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    for (i, (_name, sql)) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as u32)?;
        tx.commit()?;
    }
    Ok(())
}
"""),
        A("Plus `Store` in `src/store/mod.rs` (`open`, `open_in_memory`, `upsert` as INSERT … "
          "ON CONFLICT(path) DO UPDATE … RETURNING id, `match_ids`) and three tests: migrate "
          "twice, insert-then-search, update-then-search."),
        bash("cargo nextest run 2>&1 | tail -14", "Run tests", r"""        PASS [   0.006s] fieldnotes::bin/fieldnotes store::tests::migrate_is_idempotent
        PASS [   0.007s] fieldnotes::bin/fieldnotes store::tests::insert_then_search
        FAIL [   0.009s] fieldnotes::bin/fieldnotes store::tests::update_then_search
──── STDERR:             fieldnotes::bin/fieldnotes store::tests::update_then_search
thread 'store::tests::update_then_search' panicked at src/store/mod.rs:83:45:
called `Result::unwrap()` on an `Err` value: SqliteFailure(Error { code: DatabaseCorrupt, extended_code: 267 }, Some("database disk image is malformed"))
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

────────────
     Summary [   0.021s] 3 tests run: 2 passed, 1 failed, 0 skipped
        FAIL [   0.009s] fieldnotes::bin/fieldnotes store::tests::update_then_search
error: test run failed""", is_error=True),
        A("Extended code 267 is `SQLITE_CORRUPT_VTAB`, and it's my trigger: with external "
          "content, FTS5's `'delete'` command must get the *old* values so it can remove exactly "
          "the tokens it indexed. I passed `new.*`."),
        edit("/home/mira/src/fieldnotes/migrations/0001_init.sql",
             "VALUES ('delete', new.id, new.title, new.body);\n    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);",
             "VALUES ('delete', old.id, old.title, old.body);\n    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);",
             "The file /home/mira/src/fieldnotes/migrations/0001_init.sql has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1", "Re-run tests", r"""     Summary [   0.014s] 3 tests run: 3 passed, 0 skipped"""),
        A("""Schema and migrations are in, 3/3 tests pass.

- `migrations/0001_init.sql`: `notes(id, path UNIQUE, title, created, mtime, size, body)` and `notes_fts` as an FTS5 external-content table (`content='notes'`, `tokenize='unicode61 remove_diacritics 2'`) with insert/delete/update triggers.
- `src/store/migrations.rs`: applies files past `user_version`, one transaction each.

The failure (`database disk image is malformed`, extended code 267) was the update trigger deleting with `new.*`; it must be `old.*`. I edited 0001 in place since it has never run outside tests; from now on schema changes get new numbered files."""),
        W(11),
        U("config: dirs::config_dir() gives me ~/Library/Application Support on my mac. I want "
          "~/.config/fieldnotes/config.toml on mac and linux like every other cli tool I use. "
          "respect XDG_CONFIG_HOME if it's set. keys for now: notes_dir (default ~/notes), "
          "editor, and a [sync] table with remote + branch", "fn-config-1"),
        write("/home/mira/src/fieldnotes/src/config.rs", r"""//! `~/.config/fieldnotes/config.toml` on every Unix, `$XDG_CONFIG_HOME/fieldnotes` when set.
//! Not `dirs::config_dir()`: on macOS that is ~/Library/Application Support.

use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub notes_dir: PathBuf, // "~/notes"
    pub editor: Option<String>,
    pub sync: SyncConfig,   // remote = "origin", branch = "main"
}

pub fn default_path() -> Option<PathBuf> {
    config_dir_from(std::env::var_os("XDG_CONFIG_HOME"), dirs::home_dir()).map(|d| d.join("fieldnotes/config.toml"))
}

/// Pure so tests need not touch the process environment.
fn config_dir_from(xdg: Option<std::ffi::OsString>, home: Option<PathBuf>) -> Option<PathBuf> {
    match xdg {
        Some(x) if !x.is_empty() && Path::new(&x).is_absolute() => Some(PathBuf::from(x)),
        _ => home.map(|h| h.join(".config")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdg_wins_when_set() {
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("XDG_CONFIG_HOME", dir.path());
        assert_eq!(default_path().unwrap(), dir.path().join("fieldnotes/config.toml"));
    }
}
"""),
        bash("cargo add --dev tempfile -q && cargo nextest run 2>&1 | grep -A8 '^error'",
             "Run tests", r"""error[E0133]: call to unsafe function `set_var` is unsafe and requires unsafe block
  --> src/config.rs:36:9
   |
36 |         std::env::set_var("XDG_CONFIG_HOME", dir.path());
   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ call to unsafe function
   |
   = note: consult the function's documentation for information on how to avoid undefined behavior
error: could not compile `fieldnotes` (bin "fieldnotes" test) due to 1 previous error""", is_error=True),
        A("Edition 2024 made `std::env::set_var` unsafe (changing the environment can race with "
          "other threads reading it). Rather than an `unsafe` block in a test, I'll test the pure "
          "`config_dir_from` helper directly; that's why it takes the env value as an argument."),
        edit("/home/mira/src/fieldnotes/src/config.rs",
             r"""        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("XDG_CONFIG_HOME", dir.path());
        assert_eq!(default_path().unwrap(), dir.path().join("fieldnotes/config.toml"));
    }""",
             r"""        assert_eq!(config_dir_from(Some("/tmp/xdg".into()), Some("/h".into())), Some(PathBuf::from("/tmp/xdg")));
    }

    #[test]
    fn dot_config_on_mac_too_and_relative_xdg_ignored() {
        assert_eq!(config_dir_from(None, Some("/Users/mira".into())), Some(PathBuf::from("/Users/mira/.config")));
        assert_eq!(config_dir_from(Some("rel".into()), Some("/h".into())), Some(PathBuf::from("/h/.config")));
    }""",
             "The file /home/mira/src/fieldnotes/src/config.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1", "Run tests", r"""     Summary [   0.019s] 6 tests run: 6 passed, 0 skipped"""),
        A("""Config is in `src/config.rs`, 6/6 tests pass.

- Path: `$XDG_CONFIG_HOME/fieldnotes/config.toml` if set (absolute and non-empty, as the XDG spec says), else `~/.config/fieldnotes/config.toml`, on macOS too. A comment says why `dirs::config_dir()` isn't used.
- Keys: `notes_dir` (default `~/notes`, tilde expanded), `editor`, `[sync] remote = "origin"`, `branch = "main"`. `deny_unknown_fields` turns typos into errors. A missing default file means defaults; a missing `--config` file is an error.

The E0133 (`set_var` is unsafe in edition 2024) is avoided by testing the pure helper instead of touching the real environment."""),
        W(25),
        U("add a nextest config: the ci profile should retry failing tests 2x and write junit. "
          "plus a minimal github ci workflow (fmt, clippy, nextest) on push + PR", "fn-nextest-1"),
        write("/home/mira/src/fieldnotes/.config/nextest.toml", r"""[profile.default]
slow-timeout = { period = "30s", terminate-after = 2 }

[profile.ci]
retries = 2
fail-fast = false

[profile.ci.junit]
path = "junit.xml"
"""),
        write("/home/mira/src/fieldnotes/.github/workflows/ci.yml", r"""name: ci
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    strategy:
      matrix:
        os: [ubuntu-latest, macos-14]
    runs-on: ${{ matrix.os }}
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
        with:
          components: rustfmt, clippy
      - uses: Swatinem/rust-cache@v2
      - uses: taiki-e/install-action@nextest
      - run: cargo fmt --check
      - run: cargo clippy --all-targets -- -D warnings
      - run: cargo nextest run --profile ci
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: junit-${{ matrix.os }}
          path: target/nextest/ci/junit.xml
"""),
        bash("cargo nextest run --profile ci 2>&1 | tail -1 && ls target/nextest/ci/",
             "Try the ci profile locally", r"""     Summary [   0.020s] 6 tests run: 6 passed, 0 skipped
junit.xml"""),
        A("""Added `.config/nextest.toml` (ci profile: `retries = 2`, `fail-fast = false`, JUnit at `target/nextest/ci/junit.xml`) and `.github/workflows/ci.yml` (Ubuntu + macOS 14: fmt check, clippy `-D warnings`, nextest ci profile, JUnit uploaded even on failure). Works locally.

Retries can hide flakiness: nextest marks such tests `FLAKY` in the summary, so look for that word rather than just green/red."""),
        W(3),
        U("commit all of this, short message", "fn-commit-scaffold-1"),
        bash("git add -A && git commit -q -m 'scaffold: clap CLI, rusqlite/FTS5 store with migrations, config, CI' && git log --oneline -1 && git status --short | wc -l",
             "Commit", r"""3d9a0c1 scaffold: clap CLI, rusqlite/FTS5 store with migrations, config, CI
0"""),
        A("Committed as `3d9a0c1 scaffold: clap CLI, rusqlite/FTS5 store with migrations, config, CI`; the tree is clean."),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-10 ChatGPT: FTS5 tokenizer choice
# ---------------------------------------------------------------------------------------------

S03 = {
    "session_id": "0c9e4a71-5b2f-4d83-9e6a-f41b7d2c08e5",
    "format": "chatgpt",
    "title": "SQLite FTS5 tokenizer for personal notes",
    "start": "2026-09-10T20:05:00Z",
    "turns": [
        U("sqlite fts5 question. which tokenizer should I use for personal notes? mostly "
          "english, some german (umlauts, ß), code snippets with snake_case and CamelCase "
          "identifiers, lots of hyphenated words like follow-up, e-mail, pre-commit. right now "
          "I have tokenize = 'unicode61 remove_diacritics 2'", "cg-fts-tokenizer-1"),
        A("""`unicode61 remove_diacritics 2` is a good default for that mix. Here's what each built-in tokenizer does with your kinds of text, and the options worth knowing.

**unicode61 (what you have)**
- Splits on anything that isn't a Unicode letter or number, lowercases, and with `remove_diacritics 2` folds accents: `über` is indexed as `uber`, so typing `uber` or `über` both match. (`ß` isn't a diacritic, so it stays `ß`; `strasse` won't match `straße`.)
- Hyphens and underscores are separators: `follow-up` → `follow`, `up`; `pre_commit_hook` → `pre`, `commit`, `hook`. CamelCase is *not* split: `HashMap` → `hashmap`.
- Searching for a hyphenated word still works if you search for it as a phrase, because the query side is tokenized the same way: the phrase `"follow-up"` becomes `follow` followed by `up`.

**Options on unicode61**
- `tokenchars '_'` keeps `snake_case` identifiers as single tokens. Upside: `my_func` matches exactly. Downside: `func` alone no longer finds it. For notes I'd leave it off.
- `tokenchars '-'` would do the same for hyphenated words. Same trade-off, and it makes `follow-up` and `follow up` different words. Leave it off.
- `separators` does the reverse (adds split characters).

**porter**
- A wrapper: `tokenize = 'porter unicode61 remove_diacritics 2'`. English stemming, so `syncing`, `synced`, `syncs` all match `sync`.
- It applies English rules to everything: German words and identifiers get stemmed oddly (usually harmless, occasionally surprising). Worth trying if you often search for inflected forms.

**ascii**
- Like unicode61 but only ASCII is treated as word characters. Not for you (German).

**trigram**
- A different model: indexes every 3-character sequence, so you can match *substrings* (`mux` inside `tmux`). Bigger index, weaker ranking. Happy to go into it if substring search matters to you.

**Also consider `prefix`**
- `prefix = '2 3'` builds extra index entries so prefix queries like `lifet*` are fast. At a few thousand notes prefix queries are already fast, so it's optional.

**One thing to watch separately:** the *query* language has its own syntax, and characters like `-`, `:`, `*`, `^` and `+` mean something there. Tokenizer choice doesn't change that, so treat user input carefully when you build the MATCH string.

My pick for your notes: keep `unicode61 remove_diacritics 2`, maybe try `porter` in front of it and see if results feel better."""),
        W(4),
        U("what about the trigram tokenizer? I often remember only part of a word, like 'mux' "
          "from tmux or 'sync' inside rsync / resync", "cg-fts-tokenizer-2"),
        A("""That's exactly the case trigram is built for. How it works and what it costs:

**How it works**
`tokenize = 'trigram'` breaks text into every overlapping 3-character sequence: `tmux` → `tmu`, `mux`. A query term is broken the same way, and a row matches if it contains all those trigrams *in sequence*. So `mux` matches `tmux`, `demux` and `muxer`, and `sync` matches `rsync`, `resync`, `async`.

**Nice extras**
- `LIKE` and `GLOB` on the FTS table can use the trigram index: `WHERE notes_fts MATCH 'mux'` and `WHERE title LIKE '%mux%'` both run off the index.
- Options (SQLite 3.45+ for the second): `case_sensitive 0` (default, case-insensitive) and `remove_diacritics 1`.

**Costs and gotchas**
1. **Index size.** Every position produces a token, so the index is much bigger than with unicode61. Expect roughly 2-4x, more for long notes.
2. **Short queries.** A term shorter than 3 characters has no trigram. In a full-text query it **matches no rows at all**, and a `LIKE '%go%'` can't use the index (it becomes a full scan). So `go`, `ui`, `db` need special handling.
3. **Ranking.** bm25 still works but scores trigram frequencies, not word frequencies, so ranking is less meaningful than with words. Title weighting via `bm25(notes_fts, 10.0, 1.0)` still helps.
4. **No word boundaries.** `cat` matches `concatenate` and `catalog`. That's the point, but it makes short common substrings noisy.
5. **No stemming** (not needed: substrings cover most of what stemming gives you).
6. **Hyphenated terms**: `follow-up` is just a 9-character string; it matches text containing `follow-up` exactly, not `follow up` with a space.

**Practical test:** build both indexes on a copy of your notes and compare size and a handful of real queries. With a few thousand notes the size difference is megabytes, not gigabytes, so the decision is really about ranking quality vs substring recall."""),
        W(2),
        U("can one fts5 table do both, words with good ranking and substrings?", "cg-fts-tokenizer-3"),
        A("""No. The tokenizer is fixed per FTS5 table when you create it, and there's no "index this column twice with different tokenizers" option. Your choices:

**1. Two FTS tables over the same content**

```sql
CREATE VIRTUAL TABLE notes_fts  USING fts5(title, body, content='notes', content_rowid='id',
                                           tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE notes_tri  USING fts5(title, body, content='notes', content_rowid='id',
                                           tokenize='trigram');
```
Both external-content, so the text is stored once; each needs its own insert/delete/update triggers. Query the word index first; if it returns too few results, or the query looks like a fragment, query the trigram index and append what's new. Cost: two indexes to keep in sync and a merge step in your code.

**2. Trigram only, with a word-boundary boost**

Use trigram for matching, and compute a small bonus in SQL or Rust when the term appears as a whole word (e.g. the title contains it, or a regex `\bterm\b` on the snippet). Simpler schema, ranking "good enough" for personal notes.

**3. Word index only, plus a LIKE fallback**

Keep unicode61 and, when it finds nothing, run `title LIKE '%term%' OR body LIKE '%term%'` on the plain `notes` table. That's a full scan, but 4k notes is only a few MB of text, so it's milliseconds.

For a personal tool with a few thousand notes I'd start with option 3 (no schema change) and move to 2 if you find yourself wanting substrings on most searches. Option 1 is the "do it properly" version, worth it only if both ranking and substrings matter a lot.

If you do switch tokenizers later, it's a migration: drop the FTS table and its triggers, recreate them with the new tokenizer, then run `INSERT INTO notes_fts(notes_fts) VALUES('rebuild');` to repopulate from the content table."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-12 Claude Code: front matter parser, search, hyphen escaping, --raw (interrupted)
# ---------------------------------------------------------------------------------------------

S04 = {
    "session_id": "e58d2b07-3f61-4a9c-b7d4-19c0a6e3f872",
    "start": "2026-09-12T08:30:00Z",
    "turns": [
        U("write the front matter parser in src/frontmatter.rs. notes look like\n\n---\ntitle: "
          "Sourdough log\ntags: [baking, sourdough]\ncreated: 2026-08-30\n---\n# Sourdough log\n"
          "...\n\ntitle falls back to the first `# ` heading, then the file stem. tags can be a "
          "yaml list or a comma string (old Bear exports have `tags: work, meetings`). notes "
          "without front matter must work too. keep created as a string for now",
          "fn-frontmatter-1"),
        write("/home/mira/src/fieldnotes/src/frontmatter.rs", r"""//! YAML front matter between `---` fences at the very top of a note.

use serde::Deserialize;

#[derive(Debug, Default, PartialEq)]
pub struct Parsed<'a> {
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub created: Option<String>,
    pub body: &'a str,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Raw { title: Option<String>, tags: Tags, created: Option<String> }

/// `tags: [a, b]` or, in old Bear exports, `tags: a, b`.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum Tags { #[default] Missing, List(Vec<String>), Comma(String) }

pub fn parse(text: &str) -> Result<Parsed<'_>, serde_yaml::Error> {
    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok(Parsed { body: text, ..Default::default() });
    };
    let end = rest.find("\n---\n").unwrap();
    let raw: Raw = serde_yaml::from_str(&rest[..end])?;
    let tags = match raw.tags {
        Tags::Missing => vec![],
        Tags::List(v) => v,
        Tags::Comma(s) => s.split(',').map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect(),
    };
    Ok(Parsed { title: raw.title, tags, created: raw.created, body: &rest[end + 5..] })
}

/// Front matter title, else the first `# ` heading, else the file stem.
pub fn title_for(parsed: &Parsed, stem: &str) -> String {
    parsed.title.clone()
        .or_else(|| parsed.body.lines().find_map(|l| l.strip_prefix("# ")).map(|h| h.trim().to_string()))
        .unwrap_or_else(|| stem.to_string())
}
"""),
        A("Before trusting it: tests for the shapes real files have, including the awkward ones "
          "(Windows line endings, a closing fence on the last line without a newline, a BOM)."),
        bash("RUST_BACKTRACE=1 cargo nextest run frontmatter 2>&1 | tail -38",
             "Run front matter tests (7 cases)", r"""        PASS [   0.004s] fieldnotes::bin/fieldnotes frontmatter::tests::comma_tags_from_bear
        PASS [   0.004s] fieldnotes::bin/fieldnotes frontmatter::tests::full_front_matter
        PASS [   0.004s] fieldnotes::bin/fieldnotes frontmatter::tests::no_front_matter
        PASS [   0.004s] fieldnotes::bin/fieldnotes frontmatter::tests::stem_fallback
        FAIL [   0.005s] fieldnotes::bin/fieldnotes frontmatter::tests::closing_fence_at_eof
──── STDERR:             fieldnotes::bin/fieldnotes frontmatter::tests::closing_fence_at_eof
thread 'frontmatter::tests::closing_fence_at_eof' panicked at src/frontmatter.rs:26:35:
called `Option::unwrap()` on a `None` value
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/29483883eed69d5fb4db01964cdf2af4d86e9cb2/library/std/src/panicking.rs:697:5
   1: core::panicking::panic_fmt
             at /rustc/29483883eed69d5fb4db01964cdf2af4d86e9cb2/library/core/src/panicking.rs:75:14
   2: core::panicking::panic
             at /rustc/29483883eed69d5fb4db01964cdf2af4d86e9cb2/library/core/src/panicking.rs:145:5
   3: core::option::unwrap_failed
             at /rustc/29483883eed69d5fb4db01964cdf2af4d86e9cb2/library/core/src/option.rs:2015:5
   4: fieldnotes::frontmatter::parse
             at ./src/frontmatter.rs:26:15
   5: fieldnotes::frontmatter::tests::closing_fence_at_eof
             at ./src/frontmatter.rs:88:17
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.

        FAIL [   0.005s] fieldnotes::bin/fieldnotes frontmatter::tests::crlf_line_endings
──── STDERR:             fieldnotes::bin/fieldnotes frontmatter::tests::crlf_line_endings
thread 'frontmatter::tests::crlf_line_endings' panicked at src/frontmatter.rs:80:9:
assertion `left == right` failed
  left: None
 right: Some("From Windows")

        FAIL [   0.005s] fieldnotes::bin/fieldnotes frontmatter::tests::utf8_bom
──── STDERR:             fieldnotes::bin/fieldnotes frontmatter::tests::utf8_bom
thread 'frontmatter::tests::utf8_bom' panicked at src/frontmatter.rs:94:9:
assertion `left == right` failed
  left: None
 right: Some("Bom")

────────────
     Summary [   0.013s] 7 tests run: 4 passed, 3 failed, 7 skipped
error: test run failed""", is_error=True),
        A("All three come from how I find the fences: `find(\"\\n---\\n\")` panics when the "
          "closing `---` is the last line with no newline (a real run would crash `fieldnotes "
          "list` on one odd file), and the exact `\"---\\n\"` prefix misses CRLF and BOM files, "
          "so their YAML lands in the body. Replacing the string matching with a line-based "
          "splitter that returns `None` instead of panicking."),
        edit("/home/mira/src/fieldnotes/src/frontmatter.rs",
             r"""    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok(Parsed { body: text, ..Default::default() });
    };
    let end = rest.find("\n---\n").unwrap();
    let raw: Raw = serde_yaml::from_str(&rest[..end])?;""",
             r"""    let Some((yaml, body)) = split_fences(text) else {
        return Ok(Parsed { body: text, ..Default::default() });
    };
    let raw: Raw = serde_yaml::from_str(yaml)?;""",
             "The file /home/mira/src/fieldnotes/src/frontmatter.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/frontmatter.rs",
             "pub fn parse(text: &str)",
             r"""/// `(yaml, body)`, or `None` when there is no complete front matter. Accepts a UTF-8 BOM,
/// `\r\n` line endings and a closing fence on the last line.
fn split_fences(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next()?.trim_end_matches(['\r', '\n']) != "---" {
        return None;
    }
    let yaml_start = text.find('\n')? + 1;
    let mut offset = yaml_start;
    for line in lines {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Some((&text[yaml_start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

pub fn parse(text: &str)""",
             "The file /home/mira/src/fieldnotes/src/frontmatter.rs has been updated successfully."),
        bash("cargo nextest run frontmatter 2>&1 | tail -1", "Re-run", r"""     Summary [   0.012s] 7 tests run: 7 passed, 7 skipped"""),
        A("""`src/frontmatter.rs` is done, 7/7 tests pass.

- `parse(text) -> Parsed { title, tags, created, body }` (body borrows the input); tags accept a YAML list or Bear's comma string; `title_for` falls back to the first `# ` heading, then the stem; `created` stays a string.
- The first version panicked (`called Option::unwrap() on a None value`, frontmatter.rs:26) when the closing `---` is the last line without a newline, and treated CRLF and BOM files as having no front matter. `split_fences` walks lines instead; an unterminated block is just body.

Invalid YAML returns `Err(serde_yaml::Error)`; the indexer should warn with the path and skip that note rather than abort."""),
        W(7),
        U("wire up `fieldnotes search <query>`: bm25 ranked, title weighted ~10x over body, print "
          "path + title + a snippet with the match highlighted (bold in a terminal). do the "
          "stale scan before searching like we said (stat, compare mtime+size, reindex changed "
          "in one transaction, skip bad yaml with a warning)", "fn-search-cmd-1"),
        A("The stale scan goes in `src/index.rs` as `refresh(store, notes_dir)`: walk the folder "
          "(skipping dot-dirs like `.git`, `.obsidian`), stat each `.md`, reparse only when mtime "
          "or size differ, delete rows for vanished files, all in one transaction; bad YAML → "
          "`warning: skipping <path>: bad front matter: …`. Then the query:"),
        write("/home/mira/src/fieldnotes/src/store/fts.rs", r"""//! Full-text search over notes_fts.

use super::Store;

pub struct Hit { pub path: String, pub title: String, pub snippet: String, pub score: f64 }

impl Store {
    /// `fts_query` goes to MATCH as is. Title hits weigh 10x body hits.
    pub fn search(&self, fts_query: &str, limit: usize, hl: (&str, &str)) -> rusqlite::Result<Vec<Hit>> {
        let mut stmt = self.conn.prepare(
            "SELECT n.path, n.title, snippet(notes_fts, 1, ?2, ?3, '…', 12), bm25(notes_fts, 10.0, 1.0) AS score
             FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
             WHERE notes_fts MATCH ?1 ORDER BY score LIMIT ?4",
        )?;
        stmt.query_map(rusqlite::params![fts_query, hl.0, hl.1, limit as i64], |r| {
            Ok(Hit { path: r.get(0)?, title: r.get(1)?, snippet: r.get(2)?, score: r.get(3)? })
        })?
        .collect()
    }
}
"""),
        bash("cargo add walkdir -q && cargo build --release -q && time ./target/release/fieldnotes search sourdough hydration | head -4 && time ./target/release/fieldnotes search sourdough hydration >/dev/null",
             "Build and search the real notes twice (cold index, then warm)", r"""baking/sourdough-log.md  Sourdough log
    …75% hydration was too slack for this flour, dropped to 70% and the…
baking/2025-11-starter-revival.md  Reviving the starter after 3 weeks in the fridge
    …three feedings at 1:5:5 before it doubled again; hydration 100% for…

real	0m1.912s
user	0m0.811s
sys	0m0.704s

real	0m0.041s
user	0m0.012s
sys	0m0.026s"""),
        A("""Search works end to end.

- `src/index.rs`: the stale scan, one transaction, bad YAML warned and skipped.
- `src/store/fts.rs`: `Store::search` ranks with `bm25(notes_fts, 10.0, 1.0)` and returns a 12-token `snippet()`.
- `src/cli/search.rs`: refresh, then search; bold highlighting only when stdout is a terminal (`IsTerminal`), so pipes get clean text.

First run indexed your 3,412 notes in 1.9 s; after that a search takes ~40 ms including the scan.

Caveat: the typed words go to `MATCH` untouched, so FTS5's query syntax applies to them."""),
        W(95),
        U("$ fieldnotes search follow-up\nError: fts5: syntax error near \"-\"\n\n$ fieldnotes "
          "search c++\nError: fts5: syntax error near \"+\"\n\n$ fieldnotes search todo: sync\n"
          "Error: no such column: todo\n\nsearch should just take words. fix it", "fn-fts-hyphen-1"),
        A("That's the caveat biting. In FTS5's query grammar a bareword may only contain letters, "
          "digits, `_` and non-ASCII characters: `-` is a syntax error outside a quoted string "
          "(`NOT` is the keyword), `+` joins phrases, `word:` is a column filter (hence `no such "
          "column: todo`), and `*`, `^`, `AND`/`OR`/`NEAR` are operators.\n\nFix: make every "
          "typed word an FTS5 string literal, wrapped in double quotes with inner `\"` doubled. "
          "Literals side by side are ANDed, and inside a string the tokenizer still runs, so "
          "`\"follow-up\"` becomes the phrase *follow up*."),
        edit("/home/mira/src/fieldnotes/src/store/fts.rs",
             "use super::Store;\n",
             r"""use super::Store;

/// Turns what the person typed into an FTS5 query that cannot be a syntax error: each
/// whitespace-separated word becomes a string literal (inner `"` doubled), ANDed. Words with
/// no letter or digit are dropped (they would be empty phrases). `None` if nothing is left.
pub fn escape_query(input: &str) -> Option<String> {
    let terms: Vec<String> = input
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}
""",
             "The file /home/mira/src/fieldnotes/src/store/fts.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/cli/search.rs",
             "    let query = words.join(\" \");\n",
             "    let Some(query) = fts::escape_query(&words.join(\" \")) else {\n        anyhow::bail!(\"nothing to search for: give at least one word\");\n    };\n",
             "The file /home/mira/src/fieldnotes/src/cli/search.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1 && cargo build --release -q && for q in follow-up 'c++' 'todo: sync'; do echo \"== $q\"; ./target/release/fieldnotes search $q | head -2; done",
             "Tests (incl. 4 new escape tests), then the three queries", r"""     Summary [   0.024s] 18 tests run: 18 passed, 0 skipped
== follow-up
work/2026-07-14-1on1-jonas.md  1:1 Jonas
    …follow-up: send him the migration plan before Friday…
== c++
reading/effective-modern-cpp.md  Effective Modern C++
    …notes on chapter 4, C++ smart pointers: unique_ptr for exclusive…
== todo: sync
projects/fieldnotes-ideas.md  fieldnotes ideas
    …TODO: sync should not commit when nothing changed…"""),
        A("""Fixed: search takes plain words now.

**Cause:** the arguments went straight into `MATCH` and were parsed as FTS5 query syntax: `fts5: syntax error near "-"`, `near "+"`, and `todo:` as a column filter.

**Fix:** `fts::escape_query` in `src/store/fts.rs` quotes each word (doubling inner `"`), joins with spaces (implicit AND), drops punctuation-only words; an empty result gives `nothing to search for`. Tests cover hyphens, colons, quotes, `OR` as plain text, and that `follow-up` matches both "follow-up" and "follow up".

Limits: `c++` really searches for `c`, and `OR`/`NOT`/`*` are now literal words. A `--raw` flag could bring the operators back when you want them."""),
        W(3),
        U("nice. but sometimes I do want the real syntax (OR, prefix*, NEAR). add a --raw flag",
          "fn-fts-raw-1"),
        A("I'll add `--raw`. Prefix queries like `sync*` get slower as the index grows, so I'll "
          "also add an FTS5 prefix index (`prefix = '2 3'`) in a new migration, which needs the "
          "table recreated."),
        write("/home/mira/src/fieldnotes/migrations/0002_prefix_index.sql", r"""-- 0002: prefix index so `term*` queries stay fast.
DROP TRIGGER notes_ai;
DROP TRIGGER notes_ad;
DROP TRIGGER notes_au;
DROP TABLE notes_fts;

CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, body, content = 'notes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
"""),
        {"interrupt": True},
        U("no wait, don't add a migration for this, prefix queries are plenty fast at 3k notes. "
          "delete that file. I just want --raw to pass the query to MATCH untouched, and mention "
          "the syntax in --help", "fn-fts-raw-2"),
        bash("rm migrations/0002_prefix_index.sql && git status --short migrations/", "Remove the unwanted migration", ""),
        edit("/home/mira/src/fieldnotes/src/cli/mod.rs",
             "    Search { query: Vec<String>, #[arg(short = 'n', long, default_value_t = 20)] limit: usize },",
             r"""    Search {
        query: Vec<String>,
        #[arg(short = 'n', long, default_value_t = 20)]
        limit: usize,
        /// Pass the query to SQLite FTS5 unchanged: OR, NOT, NEAR(a b, 5), prefix*,
        /// "exact phrase", title:word. See https://sqlite.org/fts5.html#full_text_query_syntax
        #[arg(long)]
        raw: bool,
    },""",
             "The file /home/mira/src/fieldnotes/src/cli/mod.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/cli/search.rs",
             r"""    let Some(query) = fts::escape_query(&words.join(" ")) else {
        anyhow::bail!("nothing to search for: give at least one word");
    };""",
             r"""    let typed = words.join(" ");
    let query = match raw {
        true => typed,
        false => fts::escape_query(&typed).ok_or_else(|| anyhow::anyhow!("nothing to search for: give at least one word"))?,
    };
    // (store.search errors under --raw are reported as "invalid --raw query: … (drop --raw …)")""",
             "The file /home/mira/src/fieldnotes/src/cli/search.rs has been updated successfully."),
        bash("cargo build --release -q && ./target/release/fieldnotes search --raw 'wal OR journal_mode' | head -2; ./target/release/fieldnotes search --raw follow-up",
             "Try raw queries", r"""inbox/2026-06-30.md  2026-06-30
    …sqlite journal_mode for the photo tool, WAL vs DELETE…
Error: invalid --raw query: fts5: syntax error near "-" (drop --raw to search for the words as typed)""", is_error=True),
        A("""Done; the prefix-index migration is deleted (it never ran, so 0002 is free again).

- `fieldnotes search --raw '…'` passes the query to `MATCH` unchanged (`OR`, `NOT`, `NEAR(a b, 5)`, `prefix*`, `"phrase"`, `title:word`), and `--help` lists that syntax with a link to the FTS5 docs.
- A bad raw query says what to do: `invalid --raw query: fts5: syntax error near "-" (drop --raw to search for the words as typed)`.
- Without `--raw` nothing changed."""),
        W(12),
        U("whats the NEAR syntax again, how far apart by default", "fn-fts-near-1"),
        A("`NEAR(a b)` matches when the two phrases are within **10 tokens** of each other (the "
          "default); give the distance as a last argument: `NEAR(sourdough hydration, 5)`. It "
          "takes more than two phrases too: `NEAR(\"follow up\" jonas friday, 20)`. With "
          "`--raw`: `fieldnotes search --raw 'NEAR(sourdough hydration, 5)'`."),
        W(5),
        U("the help for edit says 'Open the best match in $EDITOR' - make it 'Open the best search match in your editor', $EDITOR isnt the only source",
          "fn-help-text-1"),
        edit("/home/mira/src/fieldnotes/src/cli/mod.rs",
             "    /// Open the best match in $EDITOR",
             "    /// Open the best search match in your editor",
             "The file /home/mira/src/fieldnotes/src/cli/mod.rs has been updated successfully."),
        bash("cargo run -q -- --help | grep edit", "Check the help line", r"""  edit    Open the best search match in your editor"""),
        A("Done: `edit    Open the best search match in your editor`."),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-16 ChatGPT: modelling tags
# ---------------------------------------------------------------------------------------------

S05 = {
    "session_id": "f2a81c46-0d7e-4b95-8c31-5e6f9a2d7c10",
    "format": "chatgpt",
    "title": "Storing note tags in SQLite",
    "start": "2026-09-16T18:20:00Z",
    "turns": [
        U("how should I store tags for notes in sqlite (rusqlite, I already have a notes table "
          "and an fts5 index)? front matter has `tags: [rust, sqlite]`. options I see: a json "
          "array column, a comma separated string column, or a join table. I need: list notes "
          "by tag, tag counts, and 'notes with tag A and B'", "cg-tags-1"),
        A("""Use a join table. The other two make exactly the queries you listed awkward or slow.

```sql
CREATE TABLE note_tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag     TEXT    NOT NULL,
    PRIMARY KEY (note_id, tag)
) WITHOUT ROWID;

CREATE INDEX idx_note_tags_tag ON note_tags(tag, note_id);
```

- `WITHOUT ROWID` because the primary key *is* the row; it saves space and a lookup.
- The primary key serves "tags of this note"; the second index serves "notes with this tag" (and is covering, so SQLite never touches the table).
- `ON DELETE CASCADE` removes a note's tags with the note. **Foreign keys are off by default in SQLite**: run `PRAGMA foreign_keys = ON` on every connection you open, or the cascade silently does nothing.

**Your three queries**

```sql
-- notes tagged rust, newest first
SELECT n.* FROM notes n JOIN note_tags t ON t.note_id = n.id
WHERE t.tag = 'rust' ORDER BY n.created DESC;

-- tag counts
SELECT tag, count(*) AS n FROM note_tags GROUP BY tag ORDER BY n DESC;

-- notes with tag A AND tag B
SELECT note_id FROM note_tags
WHERE tag IN ('rust', 'sqlite')
GROUP BY note_id HAVING count(*) = 2;
```

**Why not the alternatives**
- *JSON column* (`tags TEXT` holding `["rust","sqlite"]`): `json_each` can query it, but nothing is indexed, so every tag query scans and parses every row. Counts need `json_each` over the whole table too.
- *Comma string*: `tags LIKE '%rust%'` also matches `rustc` and `trust`; fixing that with delimiters (`',' || tags || ',' LIKE '%,rust,%'`) works but can't use an index and is easy to get wrong.

**Keeping it in sync**
When the indexer re-parses a note, replace its tags in the same transaction as the note update:

```sql
DELETE FROM note_tags WHERE note_id = ?1;
INSERT INTO note_tags (note_id, tag) VALUES (?1, ?2);  -- once per tag
```

Simple, and with a handful of tags per note it costs nothing."""),
        W(5),
        U("I use hierarchical tags like project/fieldnotes, project/garden, area/health. how do "
          "I query 'everything under project/'? do I need a closure table or something",
          "cg-tags-2"),
        A("""No closure table needed. Store the full path as the tag string (`project/fieldnotes`) and use the fact that an index on `tag` is sorted: everything under `project/` is one contiguous range.

**The range trick**

```sql
SELECT DISTINCT n.id, n.title
FROM note_tags t JOIN notes n ON n.id = t.note_id
WHERE t.tag = 'project'                           -- the parent itself, if used
   OR (t.tag >= 'project/' AND t.tag < 'project0');
```

Why `project0`: in ASCII (and UTF-8 byte order, which SQLite's default BINARY collation uses) the character right after `/` (0x2F) is `0` (0x30). So every string that starts with `project/` sorts at or after `'project/'` and strictly before `'project0'`. SQLite turns that into an index range scan:

```
SEARCH t USING COVERING INDEX idx_note_tags_tag (tag>? AND tag<?)
```

In Rust you build the bounds from the prefix: `lo = format!("{p}/")`, `hi = format!("{p}0")`.

**Why not `LIKE 'project/%'`**
- SQLite only uses an index for `LIKE` when the LIKE's case sensitivity matches the column's collation (by default LIKE is case-insensitive and the column is BINARY, so no index), unless you set `PRAGMA case_sensitive_like` or declare the column `COLLATE NOCASE`.
- `_` and `%` inside tag names would need escaping (`project/my_app` contains a wildcard).
- `GLOB 'project/*'` does use the index (it's case-sensitive) and is a fine alternative; the range is just explicit about what happens.

**When a closure table would be worth it**
If you needed per-node metadata (descriptions, colours), moving whole subtrees constantly, or tags with several parents. With string paths, renaming a subtree is one UPDATE:

```sql
UPDATE note_tags SET tag = 'archive/' || substr(tag, length('project/') + 1)
WHERE tag >= 'project/' AND tag < 'project0';
```

(and rewriting the front matter in the files, since those are the source of truth.)

**Counts per subtree**

```sql
SELECT count(DISTINCT note_id) FROM note_tags
WHERE tag = 'project' OR (tag >= 'project/' AND tag < 'project0');
```"""),
        W(2),
        U("related: old notes have both Rust and rust, and bear exports have #rust with the hash. "
          "normalize in the db or fix the files?", "cg-tags-3"),
        A("""Normalize when you index, don't silently rewrite the files.

**On ingest, canonicalize each tag:**
1. trim whitespace
2. strip a leading `#` (Bear, Obsidian inline tags)
3. lowercase, in Rust with `str::to_lowercase()`, which is Unicode-aware (`Größe` → `größe`). SQLite's `COLLATE NOCASE` and `lower()` only fold ASCII, so doing it in the database would treat `Über` and `über` as different.
4. drop a trailing `/` and collapse `//` (`project//garden/` → `project/garden`)
5. skip empty results

Store only the canonical form in `note_tags`. Then `Rust`, `rust` and `#rust` are one tag for counts and filters, and the range trick keeps working because everything is lowercase.

**Why not rewrite the files automatically:** the files are your source of truth and are synced through git. A tool that edits hundreds of notes as a side effect of indexing produces a giant surprise commit, can fight your editor if a note is open, and makes the indexer a writer, which it otherwise never has to be.

**If you want the files clean too**, make it an explicit command (`fieldnotes tags normalize --dry-run`, then without `--dry-run`) that rewrites front matter once, shows a diff summary, and that you run deliberately and commit as one "normalize tags" commit.

**Display:** if you care about showing `Rust` rather than `rust`, you could keep the most common original spelling per tag in a small `tag_display` table. For a personal tool, lowercase everywhere is usually fine."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-19 Claude Code: tags, the trigram switch, short queries, clippy
# ---------------------------------------------------------------------------------------------

S06 = {
    "session_id": "1d4b9f62-7a3e-4c08-b5e9-c2f06d8a3174",
    "start": "2026-09-19T10:00:00Z",
    "turns": [
        U("implement tags like chatgpt suggested: note_tags(note_id, tag) join table without "
          "rowid, normalize tags on ingest (trim, strip leading #, lowercase, no trailing or "
          "double /). hierarchical: `fieldnotes list --tag project` includes project/* via the "
          "range trick ('project/' .. 'project0'). also `fieldnotes tags` printing counts",
          "fn-tags-1"),
        write("/home/mira/src/fieldnotes/migrations/0002_tags.sql", r"""-- 0002: tags as a join table, stored canonical (see frontmatter::normalize_tag).
CREATE TABLE note_tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag     TEXT    NOT NULL,
    PRIMARY KEY (note_id, tag)
) WITHOUT ROWID;
CREATE INDEX idx_note_tags_tag ON note_tags(tag, note_id);

-- Existing rows have no tags yet: make the next stale scan reparse every note.
UPDATE notes SET mtime = 0;
"""),
        edit("/home/mira/src/fieldnotes/src/frontmatter.rs",
             "/// Front matter title, else the first `# ` heading, else the file stem.",
             r"""/// Canonical tag: trimmed, no leading `#`, Unicode-lowercased, no empty path segments.
/// `#Project//Garden/` → `project/garden`.
pub fn normalize_tag(raw: &str) -> Option<String> {
    let t = raw.trim().trim_start_matches('#').to_lowercase();
    let joined = t.split('/').map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("/");
    (!joined.is_empty()).then_some(joined)
}

/// Front matter title, else the first `# ` heading, else the file stem.""",
             "The file /home/mira/src/fieldnotes/src/frontmatter.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             "    pub fn match_ids(",
             r"""    /// Notes newest first; with `tag`, that tag and everything below it (`tag/…`).
    pub fn list(&self, tag: Option<&str>, limit: usize) -> rusqlite::Result<Vec<ListedNote>> {
        let (lo, hi) = tag.map(|t| (format!("{t}/"), format!("{t}0"))).unwrap_or_default();
        let mut stmt = self.conn.prepare(
            "SELECT n.id, n.path, n.title, n.created FROM notes n
             WHERE ?1 IS NULL OR n.id IN (
                 SELECT note_id FROM note_tags WHERE tag = ?1 OR (tag >= ?2 AND tag < ?3))
             ORDER BY n.created DESC NULLS LAST, n.path LIMIT ?4",
        )?;
        stmt.query_map(params![tag, lo, hi, limit as i64], ListedNote::from_row)?.collect()
    }

    pub fn match_ids(""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        A("Also: `Store::set_tags` (delete + insert inside the indexer's transaction), "
          "`tag_counts`, `PRAGMA foreign_keys = ON` in `Store::open` (SQLite has it off per "
          "connection, and without it the cascade silently does nothing), the `tags` subcommand, "
          "and tests."),
        bash("cargo nextest run 2>&1 | tail -1 && sqlite3 ~/notes/.fieldnotes/index.db \"EXPLAIN QUERY PLAN SELECT note_id FROM note_tags WHERE tag = 'project' OR (tag >= 'project/' AND tag < 'project0')\" && "
             "cargo build --release -q && ./target/release/fieldnotes tags | head -5 && ./target/release/fieldnotes list --tag project -n 3",
             "Tests, query plan, and a real run", r"""     Summary [   0.031s] 25 tests run: 25 passed, 0 skipped
QUERY PLAN
`--MULTI-INDEX OR
   |--INDEX 1
   |  `--SEARCH note_tags USING COVERING INDEX idx_note_tags_tag (tag=?)
   `--INDEX 2
      `--SEARCH note_tags USING COVERING INDEX idx_note_tags_tag (tag>? AND tag<?)
  412  work
  318  work/meetings
  201  baking
  164  reading
  121  project/fieldnotes
2026-09-18  fieldnotes: tags design        projects/fieldnotes-tags.md
2026-09-14  Raised bed #3 soil mix          garden/2026-09-14-raised-bed.md
2026-09-12  fieldnotes search escaping      projects/fieldnotes-search.md"""),
        A("""Tags are in, 25/25 tests pass.

- `migrations/0002_tags.sql`: `note_tags(note_id, tag)` with primary key `(note_id, tag)`, `WITHOUT ROWID`, `ON DELETE CASCADE`, plus `idx_note_tags_tag(tag, note_id)`. It sets `mtime = 0` on every note so the next scan reparses them all and fills in tags (one ~2 s run).
- `frontmatter::normalize_tag`: trim, strip `#`, Unicode `to_lowercase()` (SQLite's `lower()` only folds ASCII), drop empty segments. Files are not rewritten.
- `list --tag project` = `project` or anything in `['project/', 'project0')`; the query plan shows two covering-index searches, no scan. `projects` and `project-x` are not included (tested).
- `fieldnotes tags` prints counts, biggest first; `foreign_keys = ON` so deleting a note deletes its tags (tested)."""),
        W(130),
        U("search for 'sync' doesn't find my notes about rsync and resync, and 'mux' finds "
          "nothing even though I have tons of tmux notes. I think we need substring search after "
          "all (chatgpt said trigram is 2-4x index size, I don't care at this size). try it but "
          "measure first, I want numbers before we switch", "fn-trigram-1"),
        bash("ls -lh ~/notes/.fieldnotes/index.db && for q in sync mux; do printf '%s: ' $q; ./target/release/fieldnotes search $q -n 1000 | grep -c '^[^ ]'; done && "
             "printf 'mux* (raw): '; ./target/release/fieldnotes search --raw 'mux*' -n 1000 | grep -c '^[^ ]'",
             "Baseline: size, hit counts, and whether a prefix query helps", r"""-rw-r--r-- 1 mira mira 14M Sep 19 12:08 /home/mira/notes/.fieldnotes/index.db
sync: 41
mux: 0
mux* (raw): 0"""),
        A("Baseline: 14 MB index, `sync` finds 41 notes, `mux` 0. The prefix query `mux*` finds "
          "0 too: a prefix only matches from the start of a token, and the token is `tmux`, so "
          "prefix indexes are a dead end for infixes. Now a trigram copy."),
        bash("cp ~/notes/.fieldnotes/index.db /tmp/tri.db && sqlite3 /tmp/tri.db \"CREATE VIRTUAL TABLE tri USING fts5(title, body, content='notes', content_rowid='id', tokenize='trigram remove_diacritics 1')\"; sqlite3 --version",
             "Build a trigram table on a copy", r"""Parse error near line 1: error in tokenizer constructor
3.40.1 2022-12-28 14:03:47 df5c253c0b3dd24916e4ec7cf77d3db5294cc9fd45ae7b9c5e82ad8197f3alt1""", is_error=True),
        A("Debian 12's `sqlite3` is 3.40.1, and trigram's `remove_diacritics` option arrived in "
          "3.45, so the tokenizer constructor rejects it. Not a problem for the app (rusqlite's "
          "bundled SQLite is newer); for the experiment I'll put sqlite.org's prebuilt 3.50 CLI "
          "in `~/.local/opt` instead of touching the system package."),
        bash("mkdir -p ~/.local/opt && cd ~/.local/opt && curl -sSLO https://sqlite.org/2025/sqlite-tools-linux-x64-3500400.zip && unzip -oq sqlite-tools-linux-x64-3500400.zip -d sqlite-3.50 && cd - >/dev/null && "
             "S=~/.local/opt/sqlite-3.50/sqlite3; $S /tmp/tri.db <<'SQL'\n"
             "DROP TRIGGER notes_ai; DROP TRIGGER notes_ad; DROP TRIGGER notes_au; DROP TABLE notes_fts;\n"
             "CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, content='notes', content_rowid='id', tokenize='trigram remove_diacritics 1');\n"
             "INSERT INTO notes_fts(notes_fts) VALUES('rebuild'); VACUUM;\n"
             ".timer on\n"
             "SELECT 'sync', count(*) FROM notes_fts WHERE notes_fts MATCH '\"sync\"';\n"
             "SELECT 'mux', count(*) FROM notes_fts WHERE notes_fts MATCH '\"mux\"';\n"
             "SELECT 'go', count(*) FROM notes_fts WHERE notes_fts MATCH '\"go\"';\n"
             "SQL\n"
             "ls -lh /tmp/tri.db",
             "Get the 3.50 CLI, rebuild the copy with trigram, compare", r"""sync|212
Run Time: real 0.003 user 0.001302 sys 0.001121
mux|57
Run Time: real 0.001 user 0.000688 sys 0.000402
go|0
Run Time: real 0.000 user 0.000061 sys 0.000035
-rw-r--r-- 1 mira mira 39M Sep 19 12:21 /tmp/tri.db"""),
        A("""Numbers from the copy:

| | unicode61 (now) | trigram |
|---|---|---|
| index file | 14 MB | 39 MB (2.8x) |
| `sync` | 41 notes | 212 (rsync, resync, Syncthing, async…) |
| `mux` | 0 | 57 |
| query time | ~1 ms | 1-3 ms |
| `go` (2 chars) | 68 | **0** |

Title-weighted bm25 still ranks title matches first. The catch is the last row: terms under 3 characters have no trigram and match nothing. Switching now; short terms need a fallback. The tokenizer can't be altered in place, so the migration drops and recreates the table and triggers, then `rebuild`s from `notes`."""),
        write("/home/mira/src/fieldnotes/migrations/0003_fts5_trigram.sql", r"""-- 0003: notes_fts from unicode61 words to trigram substrings.
-- Why: substring search (`mux` finds tmux, `sync` finds rsync/resync) matters more for notes
-- than word-level ranking. Measured on 3,418 notes: index 14 MB -> 39 MB, queries 1-3 ms.
-- Cost: terms under 3 characters match nothing through MATCH (handled in store::fts), and
-- `follow-up` matches only the literal "follow-up". remove_diacritics needs SQLite >= 3.45.
DROP TRIGGER notes_ai;
DROP TRIGGER notes_ad;
DROP TRIGGER notes_au;
DROP TABLE notes_fts;

CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, body, content = 'notes', content_rowid = 'id',
    tokenize = 'trigram remove_diacritics 1'
);
CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;

INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
"""),
        bash("cargo build --release -q && ./target/release/fieldnotes search mux -n 2 && cargo nextest run 2>&1 | grep -A5 'STDERR' | head -6",
             "Apply on the real index, search, run tests", r"""tools/tmux-cheatsheet.md  tmux cheatsheet
    …prefix is C-a; split panes with prefix | and prefix -; detach…
reading/audio-demux-notes.md  Audio demuxing notes
    …ffmpeg -i in.mkv -map 0:a:0 -c copy out.m4a; demux without re-encoding…
──── STDERR:             fieldnotes::bin/fieldnotes store::fts::tests::hyphenated_word_matches_both_spellings
thread 'store::fts::tests::hyphenated_word_matches_both_spellings' panicked at src/store/fts.rs:88:9:
assertion `left == right` failed
  left: ["a.md"]
 right: ["a.md", "b.md"]""", is_error=True),
        A("""Switched to trigram (`migrations/0003_fts5_trigram.sql`, `tokenize = 'trigram remove_diacritics 1'`, reason and numbers in the file header). `mux` now finds your tmux and demux notes.

Measured first: index 14 → 39 MB (2.8x), `sync` 41 → 212 hits, `mux` 0 → 57, queries 1-3 ms. Prefix queries (`mux*`) were checked and can't find infixes.

Two behaviour changes to decide on:
1. One test fails: with trigram, `"follow-up"` is a literal substring, so it no longer matches "follow up". Acceptable?
2. Terms under 3 characters (`go`, `ui`, `db`) now match **nothing** (`go`: 68 → 0). Should I add a `LIKE` fallback for those? At 3.4k notes a scan is milliseconds.

Note for poking at the index by hand: Debian's `sqlite3` 3.40 fails on this schema (`error in tokenizer constructor`); use `~/.local/opt/sqlite-3.50/sqlite3`."""),
        W(9),
        U("hyphen: fine if follow-up only matches the literal, fix the test. but yes `fieldnotes "
          "search go` returning nothing is bad, same for ui and db, I search those all the time. "
          "do the LIKE thing but make 'go' not match every 'good' and 'google'", "fn-trigram-2"),
        A("Plan: split the words into long terms (3+ chars, trigram `MATCH` as now) and short ones. "
          "Each short term becomes `title LIKE ? ESCAPE '\\' OR body LIKE ?` with `%`, `_` and "
          "`\\` escaped, followed by a whole-word check in Rust so `go` drops `good`/`google`. "
          "Without a MATCH there's no `bm25()` or `snippet()`, so those results rank title hits "
          "first, then newest, with a snippet cut in Rust."),
        edit("/home/mira/src/fieldnotes/src/store/fts.rs",
             "    /// `fts_query` goes to MATCH as is. Title hits weigh 10x body hits.",
             r"""    /// Words as typed: 3+ character terms through the trigram index, shorter ones (which have
    /// no trigram and would match nothing) through LIKE plus a whole-word check.
    pub fn search_words(&self, input: &str, limit: usize, hl: (&str, &str)) -> rusqlite::Result<Vec<Hit>> {
        let words: Vec<&str> = input.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).collect();
        let (short, long): (Vec<&str>, Vec<&str>) = words.iter().partition(|w| w.chars().count() < 3);
        if short.is_empty() {
            return escape_query(&long.join(" ")).map_or(Ok(vec![]), |q| self.search(&q, limit, hl));
        }
        let (sql, args) = like_query(escape_query(&long.join(" ")), &short);
        let mut hits = self.rows_to_hits(&sql, &args, &short, hl)?; // keeps only whole-word matches
        hits.sort_by(|a, b| a.score.total_cmp(&b.score)); // title hits first, stable: newest first within
        hits.truncate(limit);
        Ok(hits)
    }

    /// `fts_query` goes to MATCH as is (already escaped, or --raw). Title hits weigh 10x body hits.""",
             "The file /home/mira/src/fieldnotes/src/store/fts.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/store/fts.rs",
             "#[cfg(test)]\nmod tests {",
             r"""fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// Byte offset of `needle` in `hay` with no letter or digit directly before or after it.
/// Only ASCII is case-folded, so byte offsets in `hay` stay valid.
fn find_word(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.to_ascii_lowercase(), needle.to_ascii_lowercase());
    h.match_indices(&n).map(|(i, _)| i).find(|&i| {
        let before = h[..i].chars().next_back();
        let after = h[i + n.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {""",
             "The file /home/mira/src/fieldnotes/src/store/fts.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1 && cargo build --release -q && for q in go ui 'db wal'; do echo \"== $q\"; ( time ./target/release/fieldnotes search $q -n 2 ) 2>&1 | grep -v '^user\\|^sys\\|^$'; done",
             "Tests, then short queries on the real notes", r"""     Summary [   0.036s] 28 tests run: 28 passed, 0 skipped
== go
projects/fieldnotes-ideas.md  fieldnotes ideas
    …rust vs go for this? rust: rusqlite is great, single binary; go: faster compile…
reading/2026-06-go-generics.md  Go generics, one year in
    …type parameters in Go 1.18 were conservative; constraints as interfaces…
real	0m0.019s
== ui
projects/garden-planner.md  Garden planner app
    …the UI is a single HTML page, no framework; data in a JSON file…
work/2026-08-21-ui-review.md  UI review with design
    …UI review: the empty states need copy, not illustrations…
real	0m0.017s
== db wal
reading/sqlite-internals.md  SQLite internals talk notes
    …the db file plus the WAL file; readers see a snapshot as of their start…
real	0m0.014s"""),
        A("""Short queries work again (`go` 19 ms, `ui` 17 ms, `db wal` 14 ms), 28/28 tests pass.

**`Store::search_words`** (`src/store/fts.rs`), used by `fieldnotes search` without `--raw`:
- 3+ character terms: trigram `MATCH` as before.
- 1-2 character terms: `LIKE '%go%' ESCAPE '\\'` on title/body (wildcards in the term escaped), ANDed with the MATCH when both kinds are present, then `find_word` keeps only whole-word hits: "rewrite it in Go?" and "go-to" match, "good", "google" and "algorithm" don't.
- Those results rank title hits first, then newest; the snippet is cut around the first hit.

The LIKE part is a full scan of 3,418 notes. Fine now, worth revisiting around 20k.

Tests: `hyphenated_word_matches_literal_only` now documents the trigram behaviour; new ones cover word boundaries, literal `%`/`_`, and mixing `mux` with `ui`. `--raw` still goes straight to MATCH, so raw terms under 3 characters match nothing."""),
        W(40),
        U("run clippy with -D warnings on all targets and clean up whatever it finds", "fn-clippy-1"),
        bash("cargo clippy --all-targets -- -D warnings 2>&1 | grep -E '^error|^  -->' ",
             "Run clippy", r"""error: redundant closure
  --> src/index.rs:47:63
error: variables can be used directly in the `format!` string
  --> src/cli/list.rs:19:9
error: this expression creates a reference which is immediately dereferenced by the compiler
  --> src/store/fts.rs:49:51
error: length comparison to zero
  --> src/store/fts.rs:71:12
error: could not compile `fieldnotes` (bin "fieldnotes") due to 4 previous errors""", is_error=True),
        bash("cargo clippy --all-targets -- -D warnings 2>&1 | grep -A6 'redundant closure'", "Details of the first one", r"""error: redundant closure
  --> src/index.rs:47:63
   |
47 |         let tags: Vec<String> = parsed.tags.iter().filter_map(|t| frontmatter::normalize_tag(t)).collect();
   |                                                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ help: replace the closure with the function itself: `frontmatter::normalize_tag`
   |
   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#redundant_closure"""),
        A("Clippy's suggestion there wouldn't compile as written (the iterator yields `&String`, "
          "`normalize_tag` takes `&str`), so I'll map to `&str` first. The other three are "
          "mechanical."),
        edit("/home/mira/src/fieldnotes/src/index.rs",
             "parsed.tags.iter().filter_map(|t| frontmatter::normalize_tag(t)).collect();",
             "parsed.tags.iter().map(String::as_str).filter_map(frontmatter::normalize_tag).collect();",
             "The file /home/mira/src/fieldnotes/src/index.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/cli/list.rs",
             "        println!(\"{:>5}  {}\", count, tag);",
             "        println!(\"{count:>5}  {tag}\");",
             "The file /home/mira/src/fieldnotes/src/cli/list.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/store/fts.rs",
             "        if short.len() == 0 {",
             "        if short.is_empty() {",
             "The file /home/mira/src/fieldnotes/src/store/fts.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/store/fts.rs",
             "let pat = format!(\"%{}%\", like_escape(&s));",
             "let pat = format!(\"%{}%\", like_escape(s));",
             "The file /home/mira/src/fieldnotes/src/store/fts.rs has been updated successfully."),
        bash("cargo clippy --all-targets -- -D warnings 2>&1 | tail -1 && cargo nextest run 2>&1 | tail -1",
             "Re-run clippy and tests", r"""    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.92s
     Summary [   0.035s] 28 tests run: 28 passed, 0 skipped"""),
        A("""Clippy is clean with `--all-targets -D warnings` (what CI runs), 28/28 tests pass.

Fixed: `redundant_closure` in `src/index.rs` (now `.map(String::as_str).filter_map(frontmatter::normalize_tag)`, since clippy's literal suggestion doesn't type-check), `uninlined_format_args` in `src/cli/list.rs`, and in `src/store/fts.rs` a `needless_borrow` (`like_escape(s)`) and `len_zero` (`short.is_empty()`)."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-24 Claude Code: git2 sync, SSH agent auth (hang), systemd timer, /clear, --dry-run
# ---------------------------------------------------------------------------------------------

S07 = {
    "session_id": "9b27e5c3-6f80-4d1a-a2c4-7e39b0f5d618",
    "start": "2026-09-24T19:30:00Z",
    "turns": [
        U("time for `fieldnotes sync`. the notes folder is already a git repo with remote "
          "git@github.com:mirak/notes.git. sync = stage everything (respecting .gitignore), "
          "commit \"sync: N files (hostname)\" if anything changed, push to origin main. use the "
          "git2 crate, no shelling out to git", "fn-sync-git2-1"),
        bash("git -C ~/notes status --short | head -3; cat ~/notes/.gitignore",
             "Look at the notes repo first (read-only)", r"""?? .fieldnotes/
 M garden/2026-09-24-harvest.md
?? inbox/2026-09-24.md
.DS_Store
.obsidian/workspace*"""),
        A("Catch before writing anything: `.fieldnotes/` (the index database) is untracked and "
          "not in your `.gitignore`, so \"stage everything\" would commit a 44 MB SQLite file. "
          "Sync will always exclude `.fieldnotes/` itself, whatever `.gitignore` says."),
        write("/home/mira/src/fieldnotes/src/sync/git.rs", r"""//! `fieldnotes sync`: commit everything in the notes folder and push it.
//! The index directory `.fieldnotes/` is never staged, whatever .gitignore says.

use std::path::Path;

use git2::{IndexAddOption, Repository};

const INDEX_DIR: &str = ".fieldnotes/";

pub fn sync(notes_dir: &Path, remote: &str, branch: &str) -> anyhow::Result<SyncReport> {
    let repo = Repository::open(notes_dir)?;
    let changed = changed_paths(&repo)?; // statuses incl. untracked, minus INDEX_DIR
    if !changed.is_empty() {
        commit_all(&repo, changed.len())?;
    }
    push(&repo, remote, branch)?;
    Ok(SyncReport { committed: changed.len() })
}

fn commit_all(repo: &Repository, n: usize) -> Result<git2::Oid, git2::Error> {
    let mut index = repo.index()?;
    let skip_index_dir = &mut |path: &Path, _: &[u8]| if path.starts_with(INDEX_DIR) { 1 } else { 0 };
    index.add_all(["*"], IndexAddOption::DEFAULT, Some(skip_index_dir))?;
    index.update_all(["*"], None)?; // stages deletions too
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let sig = repo.signature()?;
    let parent = repo.head()?.peel_to_commit()?;
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    let msg = format!("sync: {n} file{} ({host})", if n == 1 { "" } else { "s" });
    repo.commit(Some("HEAD"), &sig, &sig, &msg, &tree, &[&parent])
}

fn push(repo: &Repository, remote: &str, branch: &str) -> Result<(), git2::Error> {
    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    repo.find_remote(remote)?.push(&[&refspec], None)
}
"""),
        bash("cargo add git2 gethostname -q && cargo nextest run 2>&1 | tail -1 && cargo run -q -- sync",
             "Tests (incl. a bare-remote integration test), then a real sync", r"""     Summary [   0.262s] 29 tests run: 29 passed, 0 skipped
Error: authentication required but no callback set; class=Ssh (23); code=Auth (-16)""", is_error=True),
        A("""`fieldnotes sync` commits correctly, but pushing to GitHub needs credentials.

- `src/sync/git.rs`: statuses incl. untracked minus `.fieldnotes/`; `add_all` with a callback that skips `.fieldnotes/`, `update_all` for deletions; commit `sync: N files (hostname)` with your git identity, nothing when nothing changed; push `main` to `origin`.
- `tests/sync.rs` runs it against a local bare repo and checks the index dir never reaches the remote (29/29 pass). You may still want `.fieldnotes/` in `.gitignore` so plain `git status` stays quiet.

The push error: `authentication required but no callback set; class=Ssh (23); code=Auth (-16)`. git2 doesn't use your ssh setup by itself; it needs a credentials callback. The local commit `sync: 2 files (mira-desktop)` is made and will go out with the next successful push.

Do you use an ssh-agent, or a key file? I'd go with the agent via `Cred::ssh_key_from_agent`."""),
        W(5),
        U("agent. I use the 1Password ssh agent, `ssh -T git@github.com` works fine in my terminal",
          "fn-ssh-auth-1"),
        edit("/home/mira/src/fieldnotes/src/sync/git.rs",
             r"""    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    repo.find_remote(remote)?.push(&[&refspec], None)""",
             r"""    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    let mut callbacks = RemoteCallbacks::new();
    callbacks.credentials(|_url, username_from_url, allowed| {
        if !allowed.contains(CredentialType::SSH_KEY) {
            return Err(git2::Error::from_str("only ssh remotes are supported"));
        }
        Cred::ssh_key_from_agent(username_from_url.unwrap_or("git"))
    });
    // libgit2 reports a rejected ref (e.g. non-fast-forward) here, not as an error from push().
    callbacks.push_update_reference(|refname, status| match status {
        Some(msg) => Err(git2::Error::from_str(&format!("push of {refname} rejected: {msg}"))),
        None => Ok(()),
    });
    let mut opts = PushOptions::new();
    opts.remote_callbacks(callbacks);
    repo.find_remote(remote)?.push(&[&refspec], Some(&mut opts))""",
             "The file /home/mira/src/fieldnotes/src/sync/git.rs has been updated successfully."),
        bash("cargo build -q && ./target/debug/fieldnotes sync",
             "Build and push with the agent", r"""Command timed out after 2m 0.0s""", is_error=True),
        bash("echo \"SSH_AUTH_SOCK=$SSH_AUTH_SOCK\"; ssh-add -l; grep -n -i identityagent ~/.ssh/config; ps -o pid,pcpu,etime,command -C fieldnotes",
             "It hangs: inspect the agent environment", r"""SSH_AUTH_SOCK=/run/user/1000/keyring/ssh
The agent has no identities.
2:  IdentityAgent ~/.1password/agent.sock
    PID %CPU     ELAPSED COMMAND
  81234 99.6       02:04 ./target/debug/fieldnotes sync"""),
        A("""Two things combine into a hang:

1. **Your shell's `SSH_AUTH_SOCK` points at GNOME Keyring's agent**, which has no keys. `ssh` works because `~/.ssh/config` says `IdentityAgent ~/.1password/agent.sock`, but libgit2 uses libssh2, which **doesn't read `~/.ssh/config`**, only `SSH_AUTH_SOCK`.
2. **libgit2 calls the credentials callback again after every failed attempt, forever.** The empty agent fails, the callback hands back the agent again, repeat: pid 81234 at 99.6% CPU.

Code fix: count attempts and give up with a clear error. Environment fix: point `SSH_AUTH_SOCK` at the 1Password socket."""),
        edit("/home/mira/src/fieldnotes/src/sync/git.rs",
             r"""    callbacks.credentials(|_url, username_from_url, allowed| {
        if !allowed.contains(CredentialType::SSH_KEY) {
            return Err(git2::Error::from_str("only ssh remotes are supported"));
        }""",
             r"""    // libgit2 re-invokes this after every rejected credential, without limit: returning the
    // same empty agent again spins forever at 100% CPU.
    let mut attempts = 0;
    callbacks.credentials(move |_url, username_from_url, allowed| {
        attempts += 1;
        if !allowed.contains(CredentialType::SSH_KEY) {
            return Err(git2::Error::from_str("only ssh remotes are supported"));
        }
        if attempts > 1 {
            let sock = std::env::var("SSH_AUTH_SOCK").unwrap_or_else(|_| "(unset)".into());
            return Err(git2::Error::from_str(&format!(
                "ssh-agent at SSH_AUTH_SOCK={sock} offered no key the remote accepted; \
                 note that libgit2 ignores IdentityAgent in ~/.ssh/config")));
        }""",
             "The file /home/mira/src/fieldnotes/src/sync/git.rs has been updated successfully."),
        bash("kill 81234; cargo build -q && ./target/debug/fieldnotes sync; SSH_AUTH_SOCK=\"$HOME/.1password/agent.sock\" ./target/debug/fieldnotes sync",
             "Same env (should fail fast), then with the 1Password socket", r"""Error: ssh-agent at SSH_AUTH_SOCK=/run/user/1000/keyring/ssh offered no key the remote accepted; note that libgit2 ignores IdentityAgent in ~/.ssh/config; class=None (0); code=GenericError (-1)
synced: 0 files committed, pushed main to origin"""),
        A("""Push works through the 1Password agent, and a wrong agent now fails in ~1 s instead of hanging.

**Why it hung:** libgit2 re-calls the credentials callback after every failure with no limit, and your shell's `SSH_AUTH_SOCK` is GNOME Keyring's agent (`/run/user/1000/keyring/ssh`, "The agent has no identities"). `ssh -T` only worked via `IdentityAgent` in `~/.ssh/config`, which libssh2 ignores.

**Code (`src/sync/git.rs`):** `Cred::ssh_key_from_agent(username_from_url.unwrap_or("git"))`, with an attempt counter that errors on the second call and names the socket plus the IdentityAgent gotcha. Also a `push_update_reference` callback: libgit2 reports rejected refs there, so without it a rejected push looked like success.

**Your environment:** add to `~/.zshenv` (so non-interactive shells get it too):

```sh
export SSH_AUTH_SOCK="$HOME/.1password/agent.sock"
```

The pending `sync: 2 files (mira-desktop)` commit is pushed. I killed the stuck process (pid 81234)."""),
        W(3),
        U("also put .fieldnotes/ in the notes repo's .gitignore so git status shuts up, and commit that there",
          "fn-notes-gitignore-1"),
        bash("printf '.fieldnotes/\n' >> ~/notes/.gitignore && git -C ~/notes commit -q -m 'ignore fieldnotes index dir' .gitignore && git -C ~/notes status --short | wc -l",
             "Ignore the index dir in ~/notes and commit", r"""0"""),
        A("Added `.fieldnotes/` to `~/notes/.gitignore` and committed it in the notes repo; "
          "`git status` there is clean. The next `fieldnotes sync` pushes that commit too."),
        W(1560),
        U("the systemd timer that runs `fieldnotes sync` every 30 min fails every time with "
          "your new error (ssh-agent at SSH_AUTH_SOCK=/run/user/1000/keyring/ssh offered no "
          "key). from the terminal it works since I added the zshenv line. unit is "
          "~/.config/systemd/user/fieldnotes-sync.service (+ .timer)", "fn-ssh-auth-2"),
        bash("cat ~/.config/systemd/user/fieldnotes-sync.service; systemctl --user show-environment | grep SSH_AUTH_SOCK",
             "The unit, and the environment the user manager gives its services", r"""[Unit]
Description=fieldnotes: commit and push ~/notes
After=network-online.target

[Service]
Type=oneshot
ExecStart=%h/.cargo/bin/fieldnotes sync
SSH_AUTH_SOCK=/run/user/1000/keyring/ssh"""),
        A("systemd user services aren't started through a shell, so `~/.zshenv` never runs for "
          "them; they get the user manager's environment, where GNOME Keyring set "
          "`SSH_AUTH_SOCK` at login. Simplest fix is `Environment=` in the unit. The alternative, "
          "a config key, would need `unsafe { std::env::set_var }` in edition 2024, because "
          "libssh2 only reads the socket from the environment."),
        edit("/home/mira/.config/systemd/user/fieldnotes-sync.service",
             "Type=oneshot\nExecStart=%h/.cargo/bin/fieldnotes sync",
             "Type=oneshot\n# libssh2 only looks at SSH_AUTH_SOCK (not IdentityAgent in ~/.ssh/config), and the\n# user manager's value is GNOME Keyring's agent, which has no keys.\nEnvironment=SSH_AUTH_SOCK=%h/.1password/agent.sock\nExecStart=%h/.cargo/bin/fieldnotes sync",
             "The file /home/mira/.config/systemd/user/fieldnotes-sync.service has been updated successfully."),
        bash("systemd-analyze --user verify ~/.config/systemd/user/fieldnotes-sync.service && systemctl --user daemon-reload && "
             "systemctl --user start fieldnotes-sync.service; journalctl --user -u fieldnotes-sync -n 3 --no-pager -o cat",
             "Validate, reload and run the job once", r"""fieldnotes-sync.service: Failed with result 'exit-code'.
Starting fieldnotes-sync.service - fieldnotes: commit and push ~/notes...
synced: 1 file committed, pushed main to origin"""),
        A("""Fixed: the manual run committed and pushed; the failure above it is the last scheduled run before the change.

`~/.config/systemd/user/fieldnotes-sync.service` now sets `Environment=SSH_AUTH_SOCK=%h/.1password/agent.sock` (with a comment why); verified with `systemd-analyze --user verify`, reloaded, timer schedule untouched.

Not done on purpose: a `sync.ssh_agent_socket` config key, since it would need an `unsafe` `set_var` at startup.

The socket only exists while the 1Password app runs, so a timer run right after boot can still fail with the same message; the next one will push."""),
        {"command": "/clear", "stdout": ""},
        U("add --dry-run to sync: list what would be committed (status letter + path) and "
          "ahead/behind vs origin/main. don't touch anything, don't even fetch", "fn-sync-dryrun-1"),
        edit("/home/mira/src/fieldnotes/src/sync/git.rs",
             "fn commit_all(",
             r"""/// What `sync` would do, computed without writing to the repo or the network.
pub fn plan(notes_dir: &Path, remote: &str, branch: &str) -> anyhow::Result<Plan> {
    let repo = Repository::open(notes_dir)?;
    let changes = changed_paths(&repo)?.into_iter().map(|(s, p)| (status_letter(s), p)).collect();
    let local = repo.head()?.peel_to_commit()?.id();
    // ahead/behind against the remote-tracking ref as of the last fetch
    let tracking = repo.find_reference(&format!("refs/remotes/{remote}/{branch}")).ok().and_then(|r| r.target());
    let ahead_behind = tracking.map(|up| repo.graph_ahead_behind(local, up)).transpose()?;
    Ok(Plan { changes, ahead_behind })
}

fn commit_all(""",
             "The file /home/mira/src/fieldnotes/src/sync/git.rs has been updated successfully."),
        bash("cargo build -q && H=$(git -C ~/notes rev-parse HEAD) && ./target/debug/fieldnotes sync --dry-run && [ \"$H\" = \"$(git -C ~/notes rev-parse HEAD)\" ] && echo 'HEAD unchanged' && cargo nextest run 2>&1 | tail -1",
             "Try the dry run and verify nothing moved", r"""would commit 3 files:
  A  inbox/2026-09-26.md
  M  garden/2026-09-24-harvest.md
  D  inbox/2026-09-20.md
main: 0 ahead, 0 behind origin/main (as of last fetch)
HEAD unchanged
     Summary [   0.271s] 30 tests run: 30 passed, 0 skipped"""),
        A("""`fieldnotes sync --dry-run` is in: `git::plan` reuses `changed_paths` (so `.fieldnotes/` is excluded exactly as in a real sync), maps statuses to A/M/D/R, and counts ahead/behind with `graph_ahead_behind` against `refs/remotes/origin/main`. No fetch, no index write, no commit; a test asserts HEAD and the bare remote don't move. 30/30 pass.

Because nothing fetches, "behind" is as of the last fetch. And `sync` itself never fetches either: if the laptop pushes first, this machine's push gets rejected (now reported properly via `push_update_reference`). That's the next real design question for sync."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-09-27 ChatGPT: sync conflicts between two machines
# ---------------------------------------------------------------------------------------------

S08 = {
    "session_id": "c47e0b19-2a85-4f3d-9b6e-08d1f5a3e2c7",
    "format": "chatgpt",
    "title": "Git sync conflicts for markdown notes",
    "start": "2026-09-27T21:10:00Z",
    "turns": [
        U("my notes cli syncs a folder of markdown files through git (git2 in rust) between my "
          "laptop and my desktop. right now sync = commit all + push, no fetch, so if the "
          "desktop pushed first the laptop's push gets rejected. what's a sane strategy when "
          "both machines changed things? I never want to lose text and I really don't want "
          "<<<<<<< markers ending up in my notes", "cg-sync-conflict-1"),
        A("""The approach that fits "never lose text, never show markers" is the one Dropbox and Syncthing use: **merge what merges cleanly, and turn real conflicts into conflict copies.**

**The sync sequence**

1. **Commit local changes first.** The working tree is clean before anything from the remote touches it, so nothing uncommitted can be overwritten.
2. **Fetch** the remote branch.
3. **Compare:**
   - remote has nothing new → just push;
   - local has nothing new → **fast-forward** (move the branch, check out);
   - both have new commits → **merge**.
4. **Merge with git's normal 3-way merge.** Most of the time the two machines touched different notes, or different parts of the same note, and the merge is clean. Accept those silently.
5. **For each file that conflicts:** keep *your* (local) version at the original path and write the *remote* version next to it as a separate file, e.g.

   `garden/tomatoes (conflict from desktop 2026-09-27).md`

   Both versions are complete, readable notes. No markers. You merge them by hand when you get to it and delete the copy.
6. **Commit the merge** (two parents) and **push**. Print the list of conflict copies so you notice them.

**Why not the alternatives**
- **Last writer wins** (force-push, or "take theirs"): silently throws away one side's text. That's exactly what you don't want.
- **Rebase** local commits onto the remote: works, but with libgit2 you drive the rebase step by step and handle conflicts in each step. It also rewrites local commits, and buys nothing for a notes repo whose history nobody reads.
- **Union merge** (keep all lines from both sides): no markers, but it interleaves lines in an order that can be nonsense and duplicates edited lines. Worse than a conflict copy, because you can't tell it happened.
- **CRDTs / operational transforms**: the right tool for real-time co-editing, overkill for two of your own machines syncing every 30 minutes.

**Expectations:** with one person and two machines, real conflicts are rare: you'd have to edit the same lines of the same note on both machines between syncs. Conflict copies make that rare case safe and visible instead of clever.

One thing to check in your own format: any front-matter field that changes on every edit will make conflicts much more common. Happy to go through the edge cases."""),
        W(8),
        U("how does that look in git2? I've only done commit + push so far", "cg-sync-conflict-2"),
        A("""Here's the shape in git2 (0.19/0.20). Error handling trimmed; `cb()` builds the same `RemoteCallbacks` with your ssh credentials that you use for push.

```rust
use git2::{build::CheckoutBuilder, FetchOptions, Repository};

pub enum Outcome { UpToDate, FastForward, Merged { conflict_copies: Vec<String> } }

fn integrate(repo: &Repository, remote: &str, branch: &str) -> Result<Outcome, git2::Error> {
    // 1. fetch
    let mut fo = FetchOptions::new();
    fo.remote_callbacks(cb());
    repo.find_remote(remote)?.fetch(&[branch], Some(&mut fo), None)?;
    let fetch_head = repo.find_reference("FETCH_HEAD")?;
    let theirs = repo.reference_to_annotated_commit(&fetch_head)?;

    // 2. what kind of merge is it?
    let (analysis, _pref) = repo.merge_analysis(&[&theirs])?;
    if analysis.is_up_to_date() {
        return Ok(Outcome::UpToDate);
    }
    if analysis.is_fast_forward() {
        let name = format!("refs/heads/{branch}");
        repo.find_reference(&name)?.set_target(theirs.id(), "sync: fast-forward")?;
        repo.set_head(&name)?;
        repo.checkout_head(Some(CheckoutBuilder::new().force()))?;
        return Ok(Outcome::FastForward);
    }

    // 3. real merge, in memory
    let ours = repo.head()?.peel_to_commit()?;
    let their_commit = repo.find_commit(theirs.id())?;
    let mut index = repo.merge_commits(&ours, &their_commit, None)?;
    let mut copies = Vec::new();
    if index.has_conflicts() {
        let conflicts: Vec<_> = index.conflicts()?.collect::<Result<_, _>>()?;
        for c in conflicts {
            // c.ancestor / c.our / c.their are Option<IndexEntry>
            // our + their: keep ours at the path, add theirs as a conflict copy
            //   (read their blob, index.add_frombuffer(&entry_with_new_path, &bytes))
            // only one side present (delete vs modify): keep the side that exists
        }
    }
    let tree = repo.find_tree(index.write_tree_to(repo)?)?;
    let sig = repo.signature()?;
    repo.commit(Some("HEAD"), &sig, &sig, "sync: merge", &tree, &[&ours, &their_commit])?;
    repo.checkout_head(Some(CheckoutBuilder::new().force()))?;
    Ok(Outcome::Merged { conflict_copies: copies })
}
```

**Details that bite:**

- **Clear the conflict before adding the resolution.** Conflicting paths sit in the index at stages 1/2/3. Call `index.conflict_remove(path)` and then add a stage-0 entry. Entries you take from `c.our` still carry their stage in `flags` (the bits `0x3000`), so zero those bits before `index.add`, or `write_tree_to` fails with "cannot create a tree from a not fully merged index".
- **`force()` checkout is only safe because step 1 committed everything.** It overwrites the working tree to match HEAD.
- **Your push callback:** keep the `push_update_reference` check. After a merge the push should be a fast-forward, but if the other machine pushed again in between, it's rejected, and you just run the cycle again.
- `merge_commits` doesn't touch the repo's on-disk merge state (no `MERGE_HEAD`), so there's nothing to clean up if you bail out halfway. With `repo.merge()` you'd need `repo.cleanup_state()`."""),
        W(6),
        U("edge cases: one side deletes a note the other edited? renames? and my `fieldnotes new` "
          "writes an `updated:` field in front matter that I also bump by hand sometimes, will "
          "that conflict constantly?", "cg-sync-conflict-3"),
        A("""**Delete vs modify**

In the conflict entry one side is `None`: `our` is `None` if you deleted it locally, `their` is `None` if the other machine deleted it. Apply your rule "never lose text": **keep the modified version**. Add the existing side as a stage-0 entry and print something like `kept garden/tomatoes.md: deleted on desktop, edited here`. Worst case you delete it again.

**Renames**

`merge_commits(…, None)` does no rename detection, so "renamed on A, edited on B" looks like a delete + add on A against a modify on B:
- the old path becomes a delete/modify conflict → kept by the rule above (with B's edits),
- the new path comes in from A as a clean add.

You end up with both files: no text lost, one duplicate to clean up. If that happens often, enable detection with `MergeOptions::new().find_renames(true)` (and optionally `rename_threshold`), passed as the third argument. Then git treats it as a rename plus a content change and usually merges cleanly.

**The `updated:` field: yes, this will hurt**

This is the classic cause of constant conflicts. Say you edit the body of a note on the laptop and a different paragraph of the same note on the desktop. The bodies merge cleanly, but both sides changed the same line:

```
updated: 2026-09-27T10:14
updated: 2026-09-27T18:02
```

Same line, different values: conflict, and with your strategy a conflict copy, for an edit that would otherwise have merged perfectly.

Fixes, best first:
1. **Don't store `updated` in the file.** Derive it: the file's mtime (already in your index), or the last commit touching the file. Your index can show it without the file containing it.
2. If you want it in the file, **resolve that one field automatically**: take the later timestamp. That means parsing front matter during conflict resolution: doable, but more code.

`created:` is fine: it never changes after the note is made, so it never conflicts.

My suggestion: drop `updated:` from the template, keep showing "updated" in the CLI from mtime, and leave existing `updated:` lines alone (they only conflict if both sides bump them)."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-10-01 Claude Code: conflict copies, "database is locked", moving the index out of ~/notes
# ---------------------------------------------------------------------------------------------

S09 = {
    "session_id": "5e3a7c08-d96b-4e21-8f40-b1c27a9e6d53",
    "start": "2026-10-01T17:45:00Z",
    "turns": [
        U("implementing the sync conflict plan I worked out with chatgpt. summary:\n- commit "
          "local changes first, then fetch\n- fast-forward if possible, else merge_commits\n- "
          "on conflict keep ours at the path, write theirs as `<stem> (conflict <host> "
          "<YYYY-MM-DD>).md` next to it\n- delete vs modify: keep the modified side\n- merge "
          "commit with two parents, then push\n- after pulling, refresh the index so pulled "
          "notes are searchable\nput the merge code in src/sync/merge.rs. also `fieldnotes new` "
          "must stop writing `updated:` into the template", "fn-sync-conflict-impl-1"),
        A("Fetch needs the same credentials callback as push, so that moves into a shared "
          "`remote_callbacks()` first. Then `merge.rs`."),
        write("/home/mira/src/fieldnotes/src/sync/merge.rs", r"""//! Bringing the remote's commits in: fast-forward when possible, otherwise a merge in which
//! every conflicting note is resolved as "ours at the path, theirs as a conflict copy".
//! Nothing is dropped and no conflict markers are written.

use git2::{build::CheckoutBuilder, FetchOptions, IndexEntry, Oid, Repository};

pub fn fetch_and_integrate(repo: &Repository, remote: &str, branch: &str, host: &str, date: &str) -> Result<Outcome, git2::Error> {
    let mut fo = FetchOptions::new();
    fo.remote_callbacks(super::git::remote_callbacks());
    repo.find_remote(remote)?.fetch(&[branch], Some(&mut fo), None)?;
    let theirs = repo.reference_to_annotated_commit(&repo.find_reference("FETCH_HEAD")?)?;
    let (analysis, _) = repo.merge_analysis(&[&theirs])?;
    if analysis.is_up_to_date() {
        return Ok(Outcome::UpToDate);
    }
    if analysis.is_fast_forward() {
        let name = format!("refs/heads/{branch}");
        repo.find_reference(&name)?.set_target(theirs.id(), "fieldnotes sync: fast-forward")?;
        repo.set_head(&name)?;
        repo.checkout_head(Some(CheckoutBuilder::new().force()))?; // safe: local changes committed first
        return Ok(Outcome::FastForward);
    }
    merge(repo, theirs.id(), host, date)
}

fn merge(repo: &Repository, their_id: Oid, host: &str, date: &str) -> Result<Outcome, git2::Error> {
    let (ours, theirs) = (repo.head()?.peel_to_commit()?, repo.find_commit(their_id)?);
    let mut index = repo.merge_commits(&ours, &theirs, None)?;
    let (mut copies, mut kept) = (vec![], vec![]);
    let conflicts: Vec<_> = index.conflicts()?.collect::<Result<_, _>>()?;
    for c in conflicts {
        match (c.our, c.their) {
            (Some(our), Some(their)) => {
                let path = String::from_utf8_lossy(&our.path).into_owned();
                let copy = conflict_copy_name(&path, host, date);
                index.conflict_remove(path.as_ref())?;
                index.add(&our)?;
                index.add_frombuffer(&entry_at(&their, &copy), repo.find_blob(their.id)?.content())?;
                copies.push(copy);
            }
            (Some(side), None) | (None, Some(side)) => {
                let path = String::from_utf8_lossy(&side.path).into_owned();
                index.conflict_remove(path.as_ref())?;
                index.add(&side)?; // delete vs modify: keep the modified side
                kept.push(path);
            }
            (None, None) => {}
        }
    }
    let tree = repo.find_tree(index.write_tree_to(repo)?)?;
    let sig = repo.signature()?;
    let msg = format!("sync: merge from {} ({host})", &their_id.to_string()[..7]);
    repo.commit(Some("HEAD"), &sig, &sig, &msg, &tree, &[&ours, &theirs])?;
    repo.checkout_head(Some(CheckoutBuilder::new().force()))?;
    Ok(Outcome::Merged { conflict_copies: copies, kept_modified: kept })
}
// conflict_copy_name: `garden/tomatoes.md` → `garden/tomatoes (conflict mira-desktop 2026-10-01).md`
// entry_at: a copy of an index entry under another path
"""),
        A("Two integration tests in `tests/sync.rs`, each with two clones of a bare remote: the "
          "same note edited on both (expect ours + a conflict copy with theirs, no `<<<<<<<`), "
          "and deleted on one side / edited on the other (expect the edit to survive)."),
        bash("cargo nextest run --test sync 2>&1 | grep -E 'FAIL|sync failed|Summary'", "Run the sync integration tests", r"""        FAIL [   0.402s] fieldnotes::sync deleted_on_one_side_edited_on_other_keeps_the_edit
sync failed: Error: cannot create a tree from a not fully merged index.; class=Index (10); code=Unmerged (-10)
        FAIL [   0.415s] fieldnotes::sync same_note_edited_on_both_machines_becomes_a_conflict_copy
sync failed: Error: cannot create a tree from a not fully merged index.; class=Index (10); code=Unmerged (-10)
     Summary [   0.419s] 4 tests run: 2 passed, 2 failed, 30 skipped""", is_error=True),
        A("Entries taken from `c.our`/`c.their` still carry their conflict stage (2 or 3) in the "
          "`flags` bits `0x3000`. `conflict_remove` cleared the old stages, but `index.add(&our)` "
          "put a stage-2 entry straight back. Resolutions must be stage 0."),
        edit("/home/mira/src/fieldnotes/src/sync/merge.rs",
             "fn entry_at(src: &IndexEntry, path: &str) -> IndexEntry {",
             "/// Conflict entries carry stage 1-3 in flags & 0x3000; a resolution must be stage 0.\nfn stage0(mut e: IndexEntry) -> IndexEntry {\n    e.flags &= !0x3000;\n    e\n}\n\nfn entry_at(src: &IndexEntry, path: &str) -> IndexEntry {",
             "The file /home/mira/src/fieldnotes/src/sync/merge.rs has been updated successfully."),
        bash("sed -i 's/index.add(&our)?;/index.add(\\&stage0(our))?;/; s/index.add(&side)?;/index.add(\\&stage0(side))?;/' src/sync/merge.rs && "
             "sed -i 's/^updated: {date}\\\\n//' src/cli/new.rs && cargo nextest run 2>&1 | tail -1 && cargo build --release -q && cp target/release/fieldnotes ~/.cargo/bin/ && fieldnotes sync",
             "Use stage0, drop updated: from the template, test, real sync", r"""     Summary [   0.533s] 36 tests run: 36 passed, 0 skipped
fetched origin/main: fast-forwarded 3 commits
reindexed 5 notes
synced: 1 file committed, pushed main to origin"""),
        A("""Conflict handling is in, and the real sync just fast-forwarded 3 commits from the laptop.

**Flow:** commit local changes → fetch (shared `remote_callbacks()`) → `merge::fetch_and_integrate` → refresh the index → push.

**`src/sync/merge.rs`:** `merge_analysis` → nothing / fast-forward (move the branch, forced checkout, safe because everything local was committed) / `merge_commits` in memory. Per conflict: both sides changed → ours stays, theirs becomes `<stem> (conflict <host> <YYYY-MM-DD>).md`; one side deleted → the modified side is kept. Then a two-parent commit `sync: merge from <sha> (<host>)`. The output lists every conflict copy.

**Bug on the way:** `cannot create a tree from a not fully merged index.; class=Index (10); code=Unmerged (-10)`: resolved entries still had stage 2/3 in `flags & 0x3000`; `stage0()` clears it.

**Template:** `fieldnotes new` no longer writes `updated:` (it would conflict whenever both machines edit the same note); existing notes untouched. 36/36 tests pass. Renames still show up as delete + add; `MergeOptions::find_renames(true)` is the knob if that ever bothers you."""),
        W(2900),
        U("getting this sometimes when the sync timer runs while I'm searching:\n\n"
          "Error: SqliteFailure(Error { code: DatabaseBusy, extended_code: 5 }, Some(\"database is locked\"))\n\n"
          "maybe 1 in 3 times if I search right when it's pulling. I guess because sync now "
          "reindexes after the pull?", "fn-db-locked-1"),
        bash("~/.local/opt/sqlite-3.50/sqlite3 ~/notes/.fieldnotes/index.db 'PRAGMA journal_mode; PRAGMA busy_timeout;' && grep -n 'pragma' src/store/mod.rs",
             "Journal mode, busy timeout, and which pragmas Store::open sets", r"""delete
0
27:        conn.pragma_update(None, "foreign_keys", true)?;"""),
        A("""Your guess is right, and the settings explain why it fails instead of waiting:

- **`journal_mode = delete`** (the default rollback journal): a writer needs an exclusive lock to commit, and readers hold a shared lock while a statement runs.
- **`busy_timeout = 0`**: on a lock, SQLite returns `SQLITE_BUSY` ("database is locked", code 5) *immediately*.
- Both processes write: sync reindexes after the pull, and `search` runs the stale scan first.

Fix: WAL (readers and the one writer don't block each other) plus a busy timeout (a second writer waits instead of failing). My first idea, a retry loop around `index::refresh` (10 × 200 ms), I dropped before finishing it: it would re-walk the folder on every retry, cover one call site only, and duplicate what SQLite's busy handler does for every statement."""),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             r"""        conn.pragma_update(None, "foreign_keys", true)?;""",
             r"""        conn.pragma_update(None, "foreign_keys", true)?;
        // sync (systemd timer) and an interactive search can both write at the same time.
        // WAL: readers and the one writer don't block each other. busy_timeout: a second writer
        // waits up to 5 s instead of failing with "database is locked" (a full reindex is ~2 s).
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.busy_timeout(std::time::Duration::from_millis(5000))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?; // safe with WAL: no corruption on crash""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | grep -m1 -A1 panicked", "Run tests (incl. a new two-connection writer test)", r"""thread 'store::tests::second_writer_waits_instead_of_failing' panicked at src/store/mod.rs:139:42:
called `Result::unwrap()` on an `Err` value: ExecuteReturnedResults""", is_error=True),
        A("`PRAGMA journal_mode = WAL` returns a row (the resulting mode) and `pragma_update` "
          "treats that as `ExecuteReturnedResults`. `pragma_update_and_check` reads the row, "
          "which also lets me assert the mode really is `wal`."),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             r"""        conn.pragma_update(None, "journal_mode", "WAL")?;""",
             r"""        let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        debug_assert!(mode.eq_ignore_ascii_case("wal") || mode == "memory", "journal_mode is {mode}");""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1 && cargo build --release -q && cp target/release/fieldnotes ~/.cargo/bin/ && "
             "( for i in $(seq 1 5); do touch ~/notes/inbox/*.md; fieldnotes sync >/dev/null 2>>/tmp/sync.err; done ) & "
             "errs=0; for i in $(seq 1 200); do fieldnotes search sourdough >/dev/null 2>>/tmp/search.err || errs=$((errs+1)); done; wait; echo \"search errors: $errs\"",
             "Tests, then 5 reindexing syncs against 200 searches", r"""     Summary [   0.845s] 37 tests run: 37 passed, 0 skipped
search errors: 0"""),
        A("""Fixed: 200 searches against 5 reindexing syncs, 0 errors.

**Cause:** default rollback journal plus no busy timeout, so whichever of sync's post-pull reindex and search's stale scan came second got `SqliteFailure(Error { code: DatabaseBusy, extended_code: 5 }, Some("database is locked"))` at once.

**Fix, in `Store::open` (`src/store/mod.rs`):**
- `journal_mode = WAL` (persistent in the file), set with `pragma_update_and_check` because plain `pragma_update` fails with `ExecuteReturnedResults` on this pragma;
- `busy_timeout = 5000 ms`: a second writer waits. 5 s covers a full ~2 s reindex; beyond that an error beats a hung terminal;
- `synchronous = NORMAL`, the usual pairing with WAL.

**Test:** `second_writer_waits_instead_of_failing` holds an IMMEDIATE transaction for 300 ms in one thread and writes from a second connection; before the fix it failed with the exact error above. 37/37.

`index.db-wal` and `index.db-shm` now sit next to `index.db`; they're part of WAL, don't delete them while fieldnotes runs."""),
        W(20),
        U("ugh, my hourly restic backup of ~/notes now drags along the 45MB index plus the -wal "
          "and -shm files every time. can we just move the index out of the notes folder? "
          "~/.local/share/fieldnotes/ like XDG says, next to the config dir logic", "fn-db-locked-2"),
        edit("/home/mira/src/fieldnotes/src/config.rs",
             "/// Pure so tests need not touch the process environment.",
             r"""/// `$XDG_DATA_HOME/fieldnotes/index.db`, else `~/.local/share/fieldnotes/index.db` (macOS too).
/// Outside the notes folder: the index is per machine and must never be synced or committed.
pub fn default_index_path() -> Option<PathBuf> {
    data_dir_from(std::env::var_os("XDG_DATA_HOME"), dirs::home_dir()).map(|d| d.join("fieldnotes/index.db"))
}

/// Pure so tests need not touch the process environment.""",
             "The file /home/mira/src/fieldnotes/src/config.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/main.rs",
             r"""    let db_path = cfg.notes_dir.join(".fieldnotes").join("index.db");""",
             r"""    let db_path = match &cfg.index_path {
        Some(p) => p.clone(),
        None => config::default_index_path().ok_or_else(|| anyhow::anyhow!("cannot find home directory; set index_path in config"))?,
    };
    // Indexes before 0.2 lived in <notes>/.fieldnotes/. It's a rebuildable cache: delete, don't
    // move (moving a WAL database safely means moving three files together).
    remove_legacy_index(&cfg.notes_dir);""",
             "The file /home/mira/src/fieldnotes/src/main.rs has been updated successfully."),
        write("/home/mira/src/fieldnotes/migrations/0004_meta.sql", r"""-- 0004: which notes folder this index was built from (the index no longer lives inside it).
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
"""),
        bash("cargo nextest run 2>&1 | tail -1 && cargo build --release -q && cp target/release/fieldnotes ~/.cargo/bin/ && "
             "fieldnotes list -n 1 && ls ~/.local/share/fieldnotes/ && ls -a ~/notes | grep -c fieldnotes",
             "Tests, then first run with the new location", r"""     Summary [   0.861s] 41 tests run: 41 passed, 0 skipped
note: removed the old index in /home/mira/notes/.fieldnotes (the index now lives outside your notes)
2026-10-01  Garlic planting             garden/2026-10-01-garlic.md
index.db
index.db-shm
index.db-wal
0"""),
        A("""The index is out of the notes folder, so `~/notes` holds only notes again and restic stops backing up a 45 MB cache.

- New default: `$XDG_DATA_HOME/fieldnotes/index.db`, else `~/.local/share/fieldnotes/index.db` on Linux and macOS (same rules as the config dir); an `index_path` key overrides it.
- First run deletes `<notes>/.fieldnotes/` with a one-line note and rebuilds from the files (~2 s once).
- `migrations/0004_meta.sql` adds a `meta` table that remembers which `notes_dir` the index was built from; pointing fieldnotes at another folder wipes and rebuilds instead of mixing notes.
- Sync still refuses to stage `.fieldnotes/`, for the laptop until it runs the new version.

41/41 tests pass."""),
        W(8),
        U("which sqlite version does rusqlite bundle for us actually", "fn-sqlite-version-1"),
        bash("cargo tree -i libsqlite3-sys | head -1 && "
             "mkdir -p examples && echo 'fn main(){println!(\"{}\", rusqlite::version());}' > examples/v.rs && cargo run -q --example v; rm examples/v.rs",
             "Ask the linked library", r"""libsqlite3-sys v0.30.1
3.46.0"""),
        A("SQLite **3.46.0**, from `libsqlite3-sys` 0.30.1 (rusqlite 0.32's bundled build), the "
          "same on every platform. So trigram `remove_diacritics` (3.45+) is fine in the app even "
          "though Debian's `sqlite3` CLI is 3.40; the CLI in `~/.local/opt` is 3.50."),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-10-06 ChatGPT: thiserror vs anyhow
# ---------------------------------------------------------------------------------------------

S10 = {
    "session_id": "8f61d2a4-b37c-4e95-a0d8-64e1c9b7f203",
    "format": "chatgpt",
    "title": "thiserror vs anyhow in a Rust CLI",
    "start": "2026-10-06T20:30:00Z",
    "turns": [
        U("rust question. my cli (a notes tool, ~3k lines) uses anyhow everywhere. now I want "
          "specific messages and exit codes for some errors (sqlite 'database is locked' → "
          "'another fieldnotes is writing, try again', exit 75), and tests that check the kind "
          "of error instead of matching strings. thiserror vs anyhow, or both? one error enum "
          "for the whole crate or one per module?", "cg-errors-1"),
        A("""Both, split by role. That's the common pattern and it fits your case well.

**thiserror for the code that *produces* errors** (store, sync, front matter, config). Callers and tests can `match` on a typed enum: which thing failed, with structured fields (the path, the note) rather than text.

**anyhow (or nothing) at the edge** (`main`, maybe the CLI glue), where all you do is add context, print, and pick an exit code.

**One enum or one per module?** For a single crate of ~3k lines, **one `Error` enum** is simpler: one `Result<T>` alias, `?` works across modules, one place to map to exit codes. Per-module enums pay off when modules become separate crates or have genuinely different callers. You can split later.

A sketch for your tool:

```rust
// src/error.rs
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("another fieldnotes process is writing the index; try again")]
    Locked(#[source] rusqlite::Error),

    #[error("index database error")]
    Db(#[source] rusqlite::Error),

    #[error("git")]
    Git(#[from] git2::Error),

    #[error("bad front matter in {}", path.display())]
    FrontMatter { path: PathBuf, #[source] source: serde_yaml::Error },

    #[error("config file {}", path.display())]
    Config { path: PathBuf, #[source] source: toml::de::Error },

    #[error("reading {}", path.display())]
    Io { path: PathBuf, #[source] source: std::io::Error },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
```

Guidelines that keep it pleasant:

1. **Variants describe what failed, not which library failed.** `Locked` is a meaningful variant; `Db` is the catch-all for the rest of rusqlite.
2. **Be careful with `#[from] std::io::Error`.** It makes `?` convenient but throws away *which file*. An `Io { path, source }` variant plus a tiny helper (`.map_err(|e| Error::io(path, e))`) gives much better messages. Also, you can't derive `From` for the same source type on two variants.
3. **No `Other(String)` catch-all.** It turns into the stringly-typed errors you're trying to leave behind.
4. **Tests match on variants:** `assert!(matches!(err, Error::FrontMatter { .. }))`.

On anyhow alone: `anyhow::Error::downcast_ref::<rusqlite::Error>()` can find the underlying error (it even works through `.context()`), so you *could* special-case "locked" in `main` without thiserror. But then the knowledge "this rusqlite error means locked" lives at the edge instead of where the database code is, and tests can't see the kind without downcasting. For your goals, the enum is the better home."""),
        W(4),
        U("how do I detect 'database is locked' specifically from a rusqlite::Error and turn it "
          "into my Locked variant? and how do exit codes work nicely if main returns Result",
          "cg-errors-2"),
        A("""**Detecting it**

rusqlite surfaces SQLite failures as `rusqlite::Error::SqliteFailure(ffi::Error, Option<String>)`, and `ffi::Error` has a `code: ErrorCode` (primary code) and `extended_code: i32`. "database is locked" is primary code `SQLITE_BUSY` → `ErrorCode::DatabaseBusy`.

Write the `From` impl by hand instead of `#[from]`, so every `?` on a rusqlite result gets classified:

```rust
impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        match &e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseBusy => {
                Error::Locked(e)
            }
            _ => Error::Db(e),
        }
    }
}
```

(Don't also put `#[from]` on `Db`: that derives a second `From<rusqlite::Error>` and the compiler rejects the conflicting impls.)

Matching on the **primary** code catches all the BUSY flavours, which differ in `extended_code`:
- `5` SQLITE_BUSY: plain lock contention
- `261` SQLITE_BUSY_RECOVERY: another connection is recovering the WAL
- `517` SQLITE_BUSY_SNAPSHOT: in WAL mode, a read transaction tried to become a write transaction after another connection had committed. `busy_timeout` can't help with this one: waiting doesn't make the snapshot current. The fix is starting such transactions as `BEGIN IMMEDIATE`.
- `773` SQLITE_BUSY_TIMEOUT

Don't confuse it with `ErrorCode::DatabaseLocked` (SQLITE_LOCKED, 6): that's a conflict *within* one connection or shared cache, not another process.

**Exit codes**

If `main` returns `Result<(), E>`, Rust prints `Error: {e:?}` and exits with 1. Fine for a prototype, but you get Debug formatting and no control over the code. Instead:

```rust
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Locked(_) => 75, // EX_TEMPFAIL: try again later
            Error::Config { .. } => 78, // EX_CONFIG
            _ => 1,
        }
    }
}
```

The BSD `sysexits.h` values are a reasonable vocabulary: 64 EX_USAGE, 65 EX_DATAERR, 69 EX_UNAVAILABLE, 74 EX_IOERR, **75 EX_TEMPFAIL** (a scheduler or wrapper script can treat it as "retry"), **78 EX_CONFIG**. clap already exits with 2 for usage errors, so leave those to clap."""),
        W(3),
        U("with thiserror do I lose the nice anyhow context chain, like 'reading notes/x.md: No "
          "such file or directory'?", "cg-errors-3"),
        A("""No. The chain is the standard `std::error::Error::source()` chain, and thiserror builds it for you: `#[source]` (or `#[from]`, which implies it) makes that field the `source()`. You only have to print it.

**Print the chain yourself:**

```rust
fn report(e: &dyn std::error::Error) {
    eprintln!("error: {e}");
    let mut cur = e.source();
    while let Some(cause) = cur {
        eprintln!("  caused by: {cause}");
        cur = cause.source();
    }
}
```

which gives

```
error: reading notes/x.md
  caused by: No such file or directory (os error 2)
```

**Or keep anyhow just for printing:** `let e = anyhow::Error::from(err); eprintln!("error: {e:#}");`. The alternate format `{:#}` joins the chain with `: ` on one line: `error: reading notes/x.md: No such file or directory (os error 2)`. `{:?}` gives the multi-line "Caused by:" layout.

**The one rule:** don't put the source's message into your own `#[error(...)]` string when it's also the `#[source]`:

```rust
// prints the io message twice when the chain is printed
#[error("reading {}: {source}", path.display())]
Io { path: PathBuf, #[source] source: std::io::Error },

// right: own context only, the chain supplies the rest
#[error("reading {}", path.display())]
Io { path: PathBuf, #[source] source: std::io::Error },
```

**Context that anyhow added for free:** with anyhow you sprinkle `.context("…")` anywhere. With thiserror, context lives in variant fields (`path`, `note`), which is more structured but means adding a field or variant when you want more. For a CLI that's usually the better trade.

**A verbose flag:** user-facing `Display` messages are for people; for debugging (e.g. which SQLite extended code you got), add `-v` that prints `{:?}` of each cause. rusqlite's Debug output includes `extended_code`, which the Display text ("database is locked") hides."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-10-09 Claude Code: two-digit-year dates, thiserror refactor, exit codes
# ---------------------------------------------------------------------------------------------

S11 = {
    "session_id": "2c8d5f17-e4a9-4b60-93c2-d7f08a6b1e45",
    "start": "2026-10-09T09:20:00Z",
    "turns": [
        U("notes I imported from Simplenote years ago show up at the very bottom of `fieldnotes "
          "list` with dates like 0019-11-02. their front matter has `created: 11/02/19` (US "
          "month/day/year). some german ones have `created: 02.11.19`", "fn-date-bug-1"),
        read("/home/mira/src/fieldnotes/src/frontmatter.rs", r"""    59→/// Front matter dates in the shapes found in old exports, normalised to ISO `YYYY-MM-DD`.
    60→const DATE_FORMATS: &[&str] = &["%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%m/%d/%y", "%d.%m.%y"];
    61→
    62→pub fn parse_date(raw: &str) -> Option<NaiveDate> {
    63→    let raw = raw.trim();
    64→    DATE_FORMATS.iter().find_map(|f| NaiveDate::parse_from_str(raw, f).ok())
    65→}"""),
        A("The two-digit formats are in the list but never reached: chrono's `%Y` accepts 1 to 4 "
          "digits when parsing, so `%m/%d/%Y` happily reads `11/02/19` as the year 19 "
          "(0019-11-02), and `find_map` stops at that first success. Same for `02.11.19` with "
          "`%d.%m.%Y`. A table test first to confirm."),
        bash("cargo nextest run dates_in_every_shape 2>&1 | grep -A3 panicked", "Run the new table test (10 cases)", r"""thread 'frontmatter::tests::dates_in_every_shape' panicked at src/frontmatter.rs:171:13:
assertion `left == right` failed: parsing "11/02/19"
  left: Some(0019-11-02)
 right: Some(2019-11-02)""", is_error=True),
        edit("/home/mira/src/fieldnotes/src/frontmatter.rs",
             r"""const DATE_FORMATS: &[&str] = &["%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%m/%d/%y", "%d.%m.%y"];

pub fn parse_date(raw: &str) -> Option<NaiveDate> {
    let raw = raw.trim();
    DATE_FORMATS.iter().find_map(|f| NaiveDate::parse_from_str(raw, f).ok())
}""",
             r"""/// `/` is US month-first (Simplenote), `.` is German day-first.
const FOUR_DIGIT_YEAR: &[&str] = &["%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y"];
/// chrono reads `%y` as 1970-2069.
const TWO_DIGIT_YEAR: &[&str] = &["%m/%d/%y", "%d.%m.%y"];

pub fn parse_date(raw: &str) -> Option<NaiveDate> {
    let raw = raw.trim();
    // chrono's %Y accepts 1-4 digits, so "11/02/19" would parse as the year 19 (0019-11-02).
    // Only let %Y formats see input that really carries a 4-digit year.
    let four = raw.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() == 4);
    let formats = if four { FOUR_DIGIT_YEAR } else { TWO_DIGIT_YEAR };
    formats.iter().find_map(|f| NaiveDate::parse_from_str(raw, f).ok()).filter(|d| d.year() >= 1900)
}""",
             "The file /home/mira/src/fieldnotes/src/frontmatter.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1 && ~/.local/opt/sqlite-3.50/sqlite3 ~/.local/share/fieldnotes/index.db \"SELECT count(*) FROM notes WHERE created < '1900'\"",
             "All tests; how many stored dates are broken", r"""     Summary [   0.872s] 42 tests run: 42 passed, 0 skipped
214"""),
        A("214 notes in the index carry a broken date, and the stale scan only reparses files "
          "whose mtime or size changed. A migration that marks exactly those rows stale (the "
          "trick 0002 used for tags) makes the next run reparse just the 214."),
        write("/home/mira/src/fieldnotes/migrations/0005_reparse_bad_dates.sql", r"""-- 0005: before the parse_date fix, two-digit years were stored as 00xx ("11/02/19" -> 0019-11-02).
-- Mark those notes stale so the next scan reparses them with the fixed parser.
UPDATE notes SET mtime = 0 WHERE created < '1900';
"""),
        bash("cargo build --release -q && cp target/release/fieldnotes ~/.cargo/bin/ && fieldnotes list --tag simplenote -n 3 && "
             "~/.local/opt/sqlite-3.50/sqlite3 ~/.local/share/fieldnotes/index.db \"SELECT count(*) FROM notes WHERE created < '1900'\"",
             "Apply and check", r"""2021-12-30  Year-end review 2021               simplenote/year-end-2021.md
2021-11-14  Bike fit measurements             simplenote/bike-fit.md
2021-10-02  Apartment viewing checklist        simplenote/apartment-checklist.md
0"""),
        A("""Fixed: the Simplenote notes sort by their real dates, and no stored date is before 1900.

**Cause:** `parse_date` (`src/frontmatter.rs`) tried the 4-digit-year formats first, and chrono's `%Y` accepts 1-4 digits, so `11/02/19` matched `%m/%d/%Y` as year 19 and `%m/%d/%y` was never tried. Same for `02.11.19`.

**Fix:** `%Y` formats only when the input has a run of exactly 4 digits, else the `%y` formats (chrono maps them to 1970-2069); anything before 1900 is rejected. Table test `dates_in_every_shape` (10 cases, e.g. `3/7/98` → 1998-03-07, `0019-11-02` → none).

**Data:** `migrations/0005_reparse_bad_dates.sql` set `mtime = 0` for the 214 rows with `created < '1900'`, so the next scan reparsed exactly those.

Slashes are always read US-style (`11/02/19` = November 2)."""),
        W(35),
        U("ok let's do the error refactor. thiserror in the modules, anyhow only at the top like "
          "chatgpt suggested: one `Error` enum in src/error.rs with a Locked variant for "
          "SQLITE_BUSY (hand-written From, not #[from]), variants with paths for io / front "
          "matter / config. no behaviour change otherwise", "fn-thiserror-1"),
        write("/home/mira/src/fieldnotes/src/error.rs", r"""//! The crate's one error type. Modules return `crate::Result`; only `main` uses anyhow.
//! Messages carry our own context only; the cause is the `source()`, never repeated.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("another fieldnotes process is writing the index; try again")]
    Locked(#[source] rusqlite::Error),
    #[error("index database error")]
    Db(#[from] rusqlite::Error),
    #[error("git")]
    Git(#[from] git2::Error),
    #[error("walking the notes folder")]
    Walk(#[from] walkdir::Error),
    #[error("bad front matter in {}", path.display())]
    FrontMatter { path: PathBuf, #[source] source: serde_yaml::Error },
    #[error("config file {}", path.display())]
    Config { path: PathBuf, #[source] source: toml::de::Error },
    #[error("reading {}", path.display())]
    Io { path: PathBuf, #[source] source: std::io::Error },
    #[error("{0}")]
    Usage(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        match &e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseBusy => Error::Locked(e),
            _ => Error::Db(e),
        }
    }
}

/// `fs::read_to_string(p).at(p)?`: io errors always say which file.
pub trait IoResultExt<T> { fn at(self, path: &Path) -> Result<T>; }
impl<T> IoResultExt<T> for std::io::Result<T> {
    fn at(self, path: &Path) -> Result<T> {
        self.map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }
}
"""),
        bash("cargo add thiserror -q && sed -i 's/anyhow::Result</crate::Result</g' src/index.rs src/config.rs src/sync/*.rs src/cli/*.rs && "
             "cargo build 2>&1 | grep -E '^error' | sort | uniq -c && cargo build 2>&1 | grep -m1 -A9 E0119",
             "Switch module signatures to crate::Result and build", r"""   1 error: could not compile `fieldnotes` (bin "fieldnotes") due to 14 previous errors
   1 error[E0119]: conflicting implementations of trait `From<rusqlite::Error>` for type `error::Error`
   6 error[E0277]: `?` couldn't convert the error to `error::Error`
   7 error: cannot find macro `anyhow` in this scope
error[E0119]: conflicting implementations of trait `From<rusqlite::Error>` for type `error::Error`
  --> src/error.rs:32:1
   |
7  | #[derive(Debug, thiserror::Error)]
   |                 ---------------- first implementation here
...
32 | impl From<rusqlite::Error> for Error {
   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ conflicting implementation for `error::Error`"""),
        A("Expected first-pass errors:\n- **E0119**: I left `#[from]` on `Db`, which derives a "
          "second `From<rusqlite::Error>` next to the hand-written one. `Db` becomes "
          "`#[source]` only.\n- **6 × E0277** (`? couldn't convert the error`, e.g. "
          "`fs::read_to_string(entry.path())?` in `src/index.rs`): exactly the point of having "
          "no `From<io::Error>`; each site gets `.at(path)`.\n- **7 × `anyhow!`**: ad-hoc "
          "messages like `empty tag` become `Error::Usage`; config's toml error becomes "
          "`Error::Config` with the path."),
        edit("/home/mira/src/fieldnotes/src/error.rs",
             "    Db(#[from] rusqlite::Error),",
             "    Db(#[source] rusqlite::Error), // From is hand-written below",
             "The file /home/mira/src/fieldnotes/src/error.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/index.rs",
             r"""        let meta = entry.metadata()?;
        let mtime = meta.modified()?.duration_since(UNIX_EPOCH)?.as_secs() as i64;""",
             r"""        let meta = entry.metadata()?; // walkdir::Error, carries the path
        // A file dated before 1970 counts as mtime 0 (always reparsed), not as an error.
        let mtime = meta.modified().at(entry.path())?.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);""",
             "The file /home/mira/src/fieldnotes/src/index.rs has been updated successfully."),
        bash("cargo build 2>&1 | grep -cE '^error'; cargo clippy --all-targets -- -D warnings 2>&1 | grep -A8 '^error' | head -9",
             "Build and clippy after converting the remaining sites", r"""0
error: the `Err`-variant returned from this function is very large
  --> src/config.rs:44:50
   |
44 | pub fn load(explicit: Option<&Path>) -> crate::Result<Config> {
   |                                         ^^^^^^^^^^^^^^^^^^^^^ the `Err`-variant is at least 136 bytes
   |
   = help: try reducing the size of `error::Error`, for example by boxing large elements or replacing it with `Box<error::Error>`
   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#result_large_err"""),
        edit("/home/mira/src/fieldnotes/src/error.rs",
             "    Config { path: PathBuf, #[source] source: toml::de::Error },",
             "    Config { path: PathBuf, #[source] source: Box<toml::de::Error> }, // boxed: result_large_err",
             "The file /home/mira/src/fieldnotes/src/error.rs has been updated successfully."),
        bash("cargo clippy --all-targets -- -D warnings 2>&1 | tail -1 && cargo nextest run 2>&1 | tail -1 && printf 'notes_dri = 1\\n' > /tmp/bad.toml && ./target/debug/fieldnotes --config /tmp/bad.toml list",
             "Clippy, tests, and one error message", r"""    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.07s
     Summary [   0.880s] 42 tests run: 42 passed, 0 skipped
Error: config file /tmp/bad.toml

Caused by:
    TOML parse error at line 1, column 1
      |
    1 | notes_dri = 1
      | ^^^^^^^^^
    unknown field `notes_dri`, expected one of `notes_dir`, `editor`, `index_path`, `sync`""", is_error=True),
        A("""Error refactor done: clippy clean, 42/42 tests, behaviour unchanged apart from better messages.

- `src/error.rs`: one `Error` enum + `crate::Result<T>`. `Locked` comes from a hand-written `From<rusqlite::Error>` when the primary code is `DatabaseBusy`; `FrontMatter`, `Config` (boxed toml error) and `Io` carry the path; `Usage(String)` replaces the `anyhow!` messages. No `From<io::Error>` on purpose: `.at(path)` names the file.
- On the way: E0119 (`#[from]` on `Db` next to the manual impl), 6 × E0277 at bare io `?`s, clippy `result_large_err` (136 bytes).
- Only `main.rs` still uses anyhow, to print the chain.

Exit codes are still 1 for everything; mapping `Locked` → 75 is the obvious next step."""),
        W(6),
        U("exit codes: Locked → 75 (EX_TEMPFAIL), config → 78, everything else 1. the timer's "
          "journal should be able to tell 'try later' from a real failure. and add -v/--verbose "
          "that prints the full source chain with Debug, so I can see the sqlite extended code",
          "fn-thiserror-2"),
        edit("/home/mira/src/fieldnotes/src/main.rs",
             r"""fn main() -> anyhow::Result<()> {
    cli::run(cli::Cli::parse())
}""",
             r"""fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let verbose = cli.verbose;
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            let mut cur = std::error::Error::source(&e);
            while let Some(cause) = cur {
                if verbose { eprintln!("  caused by: {cause:?}") } else { eprintln!("  caused by: {cause}") }
                cur = cause.source();
            }
            // sysexits.h: 75 EX_TEMPFAIL = try again later, 78 EX_CONFIG. clap uses 2 itself.
            ExitCode::from(match e {
                Error::Locked(_) => 75,
                Error::Config { .. } => 78,
                _ => 1,
            })
        }
    }
}""",
             "The file /home/mira/src/fieldnotes/src/main.rs has been updated successfully."),
        A("Plus a global `-v/--verbose` flag in `Cli`. To test the locked path without a 5 s "
          "wait, the busy timeout gets a hidden `FIELDNOTES_BUSY_TIMEOUT_MS` override used only "
          "by `tests/exit_codes.rs`: it holds `BEGIN EXCLUSIVE` on the index from the test while "
          "`fieldnotes list -v` has a stale note to write."),
        bash("cargo nextest run --test exit_codes 2>&1 | tail -3 && ./target/debug/fieldnotes --config /tmp/bad.toml list 2>/dev/null; echo \"exit=$?\"",
             "Exit code tests and a manual check", r"""        PASS [   0.188s] fieldnotes::exit_codes locked_index_is_75_with_a_friendly_message
────────────
     Summary [   0.204s] 2 tests run: 2 passed, 42 skipped
exit=78"""),
        A("""Exit codes and `--verbose` are in (44/44 tests).

- `main` returns `ExitCode`: prints `error: <message>` plus `  caused by: …` lines, then **75** for `Locked` (EX_TEMPFAIL, message `another fieldnotes process is writing the index; try again`), **78** for `Config` (EX_CONFIG), 1 otherwise; clap's usage errors stay 2.
- `-v/--verbose` prints causes with `{:?}`, so you see `SqliteFailure(Error { code: DatabaseBusy, extended_code: 5 }, Some("database is locked"))` with the extended code.
- `tests/exit_codes.rs`: bad config → 78; index held by `BEGIN EXCLUSIVE` → 75, friendly first line, `extended_code: 5` under `-v`.

In `journalctl --user -u fieldnotes-sync`, an exit status 75 with `try again` is the harmless case; the next timer run does the work."""),
        W(50),
        U("cargo update and check nothing broke", "fn-cargo-update-1"),
        bash("cargo update 2>&1 | grep -E 'Updating|Locking' | head -8 && cargo clippy --all-targets -- -D warnings 2>&1 | tail -1 && cargo nextest run 2>&1 | tail -1",
             "Update the lockfile, clippy, tests", r"""    Updating crates.io index
     Locking 9 packages to latest Rust 1.90.0 compatible versions
    Updating clap v4.5.48 -> v4.5.50
    Updating clap_builder v4.5.48 -> v4.5.50
    Updating git2 v0.20.2 -> v0.20.3
    Updating libgit2-sys v0.18.2+1.9.1 -> v0.18.3+1.9.2
    Updating serde v1.0.226 -> v1.0.228
    Updating thiserror v2.0.16 -> v2.0.17
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 41.36s
     Summary [   1.352s] 44 tests run: 44 passed, 0 skipped"""),
        A("Updated 9 packages within the existing semver ranges (clap 4.5.50, git2 0.20.3 with "
          "libgit2 1.9.2, serde, thiserror 2.0.17, …). Clippy is clean and 44/44 tests pass. "
          "Only `Cargo.lock` changed."),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-10-15 Claude Code: listing 20k notes, a generator subcommand, "database is locked" again
# ---------------------------------------------------------------------------------------------

S12 = {
    "session_id": "a91f6e2d-0b54-4c37-8e1a-3d7c5b90f4e8",
    "start": "2026-10-15T18:00:00Z",
    "turns": [
        U("fieldnotes list is painfully slow with lots of notes. I generated 20k fake notes "
          "(scripts/gen_notes.py, 200 commits of history) into /tmp/notes20k, and `time "
          "fieldnotes --config /tmp/fn20k.toml list -n 100000 > /dev/null` takes 9.4s, and "
          "that's after indexing, every run. my real folder (3.5k notes) already takes ~1.6s "
          "which I notice every time", "fn-list-perf-1"),
        read("/home/mira/src/fieldnotes/src/cli/list.rs", r"""     9→    let repo = git2::Repository::open(&cfg.notes_dir).ok();
    10→    for n in store.list(tag.as_deref(), limit)? {
    11→        let tags = store.tags_for(n.id)?;
    12→        // mtime is useless after a pull (checkout rewrites the files), so ask git when we can
    13→        let updated = match &repo {
    14→            Some(r) => git::last_change(r, &n.path)?,
    15→            None => index::mtime_date(&cfg.notes_dir.join(&n.path)),
    16→        };
    17→        println!(
    18→            "{}  {}  {:<48}  {}  [{}]",
    19→            n.created.as_deref().unwrap_or("          "),
    20→            updated.as_deref().unwrap_or("          "),
    21→            n.title, n.path, tags.join(", ")
    22→        );
    23→    }"""),
        A("Suspects: `git::last_change` walks history back from HEAD *per note* until the note's "
          "blob changes, and `tags_for` is one query per note. Timing each phase with a "
          "temporary stderr timer rather than guessing."),
        bash("cargo build --release -q && FIELDNOTES_TIMING=1 ./target/release/fieldnotes --config /tmp/fn20k.toml list -n 100000 > /dev/null && "
             "FIELDNOTES_TIMING=1 ./target/release/fieldnotes list -n 100000 > /dev/null; git -C ~/notes rev-list --count HEAD",
             "Time each phase (temporary instrumentation)", r"""[20k]  refresh             0.284s
[20k]  list query          0.038s
[20k]  tags_for ×20000     0.611s
[20k]  last_change ×20000  8.217s
[20k]  print               0.243s
[20k]  total               9.393s
[real] last_change ×3517   1.391s
[real] total               1.595s
1912"""),
        A("`last_change` is 87% of the time: O(notes × commits), two tree lookups per commit "
          "per note, and your real repo has 1,912 commits. Quick experiment first: `par_iter` over "
          "the notes in `list.rs`, one `Repository` per worker thread."),
        bash("cargo add rayon -q && cargo build --release -q && FIELDNOTES_TIMING=1 ./target/release/fieldnotes --config /tmp/fn20k.toml list -n 100000 2>&1 >/dev/null | grep total; "
             "FIELDNOTES_TIMING=1 ./target/release/fieldnotes list -n 100000 2>&1 >/dev/null | grep total",
             "Experiment: rayon over notes, one Repository per worker", r"""[20k]  total               1.911s
[real] total               0.498s"""),
        A("""9.4 s → 1.9 s, but I'm not keeping it: still O(notes × commits) and redone on **every** `list` while your history only grows; `git2::Repository` isn't `Sync`, so each worker opens its own repo; and it burns all cores for a list command.

Real fix: the answer only changes when HEAD moves. Cache "last changed" per note in the index and update it **incrementally**: remember the last walked commit, and walk only newer commits (`revwalk` + `hide(last)`), diffing each against its parent once for all paths. Reverting rayon."""),
        write("/home/mira/src/fieldnotes/migrations/0006_updated_cache.sql", r"""-- 0006: per-note "last changed" date, maintained from git history incrementally.
-- The commit up to which history has been walked is meta.updated_walked_to.
ALTER TABLE notes ADD COLUMN updated TEXT;
DELETE FROM meta WHERE key = 'updated_walked_to';
"""),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             "    pub fn set_tags(",
             r"""    /// Brings `notes.updated` up to date with commits made since the last walk.
    pub fn refresh_updated(&mut self, repo: &git2::Repository) -> crate::Result<usize> {
        let head = repo.head()?.peel_to_commit()?.id();
        let mut stmt = self.conn.prepare_cached("UPDATE notes SET updated = ?1 WHERE path = ?2 AND (updated IS NULL OR updated < ?1)")?;
        let tx = self.conn.transaction()?;
        let last = meta_get(&tx, "updated_walked_to")?;
        if last.as_deref() == Some(&head.to_string()) {
            return Ok(0);
        }
        let mut seen = std::collections::HashSet::new();
        for (path, date) in crate::sync::git::changed_since(repo, head, last.as_deref())? { // newest first
            if seen.insert(path.clone()) {
                stmt.execute(params![date, path])?;
            }
        }
        meta_set(&tx, "updated_walked_to", &head.to_string())?;
        tx.commit()?;
        Ok(seen.len())
    }

    pub fn set_tags(""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        bash("cargo remove rayon -q && git checkout src/cli/list.rs && cargo build --release 2>&1 | grep -A13 '^error\\['", "Revert the rayon experiment; build", r"""error[E0502]: cannot borrow `self.conn` as mutable because it is also borrowed as immutable
   --> src/store/mod.rs:210:18
    |
209 |         let mut stmt = self.conn.prepare_cached("UPDATE notes SET updated = ?1 WHERE path = ?2 AND (updated IS NULL OR updated < ?1)")?;
    |                        --------- immutable borrow occurs here
210 |         let tx = self.conn.transaction()?;
    |                  ^^^^^^^^^^^^^^^^^^^^^^^ mutable borrow occurs here
...
218 |                 stmt.execute(params![date, path])?;
    |                 ---- immutable borrow later used here""", is_error=True),
        A("Fair: the cached statement borrows `self.conn`, and `Connection::transaction()` needs "
          "`&mut self.conn` while that borrow lives. It was wrong in spirit too, since the "
          "UPDATEs belong *inside* the transaction. Preparing on `tx` fixes both."),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             r"""        let mut stmt = self.conn.prepare_cached("UPDATE notes SET updated = ?1 WHERE path = ?2 AND (updated IS NULL OR updated < ?1)")?;
        let tx = self.conn.transaction()?;""",
             r"""        let tx = self.conn.transaction()?;
        let mut stmt = tx.prepare_cached("UPDATE notes SET updated = ?1 WHERE path = ?2 AND (updated IS NULL OR updated < ?1)")?;""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        A("And `list` itself: tags via a correlated `group_concat` in the same query (one "
          "statement instead of 20k), `updated` from the column, output through "
          "`BufWriter<StdoutLock>`. `writeln!` also lets it stop quietly on `BrokenPipe`, where "
          "`println!` panics with `failed printing to stdout` under `fieldnotes list | head`."),
        bash("cargo nextest run 2>&1 | tail -1 && cargo build --release -q && ./target/release/fieldnotes --config /tmp/fn20k.toml list -n 1 >/dev/null && "
             "time ./target/release/fieldnotes --config /tmp/fn20k.toml list -n 100000 > /dev/null; time ./target/release/fieldnotes list -n 100000 > /dev/null",
             "Tests; first run walks history once; then timings", r"""     Summary [   1.402s] 47 tests run: 47 passed, 0 skipped

real	0m0.212s
user	0m0.121s
sys	0m0.089s

real	0m0.061s
user	0m0.030s
sys	0m0.029s"""),
        A("""`fieldnotes list`: **20k notes 9.4 s → 0.21 s**, your real notes **1.6 s → 0.06 s**.

- **Cause (measured):** `git::last_change` walked history once per note, O(notes × commits): 8.2 of 9.4 s. Minor: N+1 `tags_for` (0.6 s), unbuffered `println!` (0.24 s).
- **Fix:** `migrations/0006_updated_cache.sql` (`notes.updated` + `meta.updated_walked_to`); `Store::refresh_updated` walks only commits newer than the last walk (one lookup when HEAD hasn't moved; the first run walked your 1,912 commits once in 0.9 s); tags come from the list query; `src/cli/list.rs` writes through a buffered stdout lock and handles `BrokenPipe`.
- **Dead end:** rayon (9.4 → 1.9 s), still O(notes × commits) on every run. Reverted.
- **E0502** on the way (`cannot borrow self.conn as mutable because it is also borrowed as immutable`): the statement is now prepared on the transaction.

Timing instrumentation removed; 47/47 tests."""),
        W(14),
        U("nice. can you turn scripts/gen_notes.py into a hidden `fieldnotes dev gen-notes` "
          "subcommand so I don't need python for it, and add a test that fails if listing 20k "
          "notes takes more than 1s in release", "fn-list-perf-2"),
        A("The generator ports easily to git2 (one tree build + commit per batch, no "
          "subprocesses). On the timing test, one objection: a hard 1 s limit in the normal suite "
          "will flake. CI runners vary 2-5x, nextest runs tests in parallel, and `cargo nextest "
          "run` builds debug, where this is ~10x slower. I'll make it an `#[ignore]`d test with "
          "its own nextest profile to run in release on purpose, plus a deterministic guard in "
          "the normal suite."),
        edit("/home/mira/src/fieldnotes/src/cli/mod.rs",
             "    /// Commit and push the notes folder\n    Sync {",
             r"""    /// Developer tools (not shown in --help)
    #[command(hide = true, subcommand)]
    Dev(DevCommand), // gen-notes DIR [--count 20000] [--commits 200] [--seed 7]
    /// Commit and push the notes folder
    Sync {""",
             "The file /home/mira/src/fieldnotes/src/cli/mod.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/.config/nextest.toml",
             "[profile.ci.junit]",
             r"""# Timing tests, run on purpose and in release:
#   cargo nextest run --cargo-profile release --profile perf --run-ignored only
[profile.perf]
default-filter = "test(/^perf_/)"
test-threads = 1

[profile.ci.junit]""",
             "The file /home/mira/src/fieldnotes/.config/nextest.toml has been updated successfully."),
        write("/home/mira/src/fieldnotes/tests/perf.rs", r"""//! Listing performance: the timing test is #[ignore]d (CI machines vary too much); the
//! structural test runs everywhere.

/// After one `list`, HEAD is recorded as walked and every note has its date, so the next `list`
/// walks no history (per-note history walks are what made it slow).
#[test]
fn list_caches_the_history_walk() {
    let (tmp, _cfg) = setup("300", "30"); // dev gen-notes + one `list`
    let db = rusqlite::Connection::open(tmp.path().join("index.db")).unwrap();
    let walked: String = db.query_row("SELECT value FROM meta WHERE key = 'updated_walked_to'", [], |r| r.get(0)).unwrap();
    let head = git2::Repository::open(tmp.path().join("notes")).unwrap().head().unwrap().target().unwrap();
    assert_eq!(walked, head.to_string());
}

#[test]
#[ignore = "timing; run with --profile perf in release"]
fn perf_list_20k_notes_under_1s() {
    let (_tmp, cfg) = setup("20000", "200");
    let start = Instant::now();
    assert!(fieldnotes(&cfg, &["list", "-n", "100000"]).status.success());
    assert!(start.elapsed() < Duration::from_secs(1), "list of 20k notes took {:?}", start.elapsed());
}
"""),
        bash("cargo build --release -q && time ./target/release/fieldnotes dev gen-notes /tmp/gen-check --count 20000 --commits 200 && ./target/release/fieldnotes --help | grep -c dev; "
             "cargo nextest run 2>&1 | tail -1; cargo nextest run --cargo-profile release --profile perf --run-ignored only 2>&1 | tail -1",
             "Generate, check it's hidden, run both test tiers", r"""
real	0m1.873s
user	0m0.902s
sys	0m0.944s
0
     Summary [   2.011s] 48 tests run: 48 passed, 1 skipped
     Summary [   4.379s] 1 test run: 1 passed, 48 skipped"""),
        A("""Done.

- **`fieldnotes dev gen-notes DIR [--count 20000] [--commits 200] [--seed 7]`** (`src/cli/dev.rs`): same notes as the Python script, committed with git2, deterministic per seed (a tiny xorshift, no `rand`). 20k notes / 200 commits in 1.9 s. Hidden from `--help`. `scripts/gen_notes.py` can go whenever you like.
- **Timing test** `perf_list_20k_notes_under_1s` is `#[ignore]` and runs via the new profile: `cargo nextest run --cargo-profile release --profile perf --run-ignored only` (passes; most of its 4.4 s is generating and indexing).
- **Deterministic guard** in the normal suite: `list_caches_the_history_walk` checks that after one `list`, `meta.updated_walked_to` equals HEAD, so the next `list` walks nothing. That's the regression that mattered, and it can't flake.

48 passed, 1 skipped in the normal run."""),
        W(2900),
        U("quick q: my systemd timer unit shows status=75 sometimes. that's our 'locked, try later' code right? does systemd retry on that by itself?",
          "fn-exit75-question-1"),
        A("Yes, 75 is ours: `Locked` → EX_TEMPFAIL, \"another fieldnotes process is writing the "
          "index; try again\". systemd doesn't retry a `Type=oneshot` service on its own; the "
          "timer just starts it again at the next 30-minute tick, which is the behaviour we "
          "wanted. If you'd rather retry sooner, add `Restart=on-failure`, `RestartSec=60` and "
          "`RestartPreventExitStatus=` for the codes that shouldn't retry (78, bad config), or "
          "mark 75 as success with `SuccessExitStatus=75` to keep the unit from showing as failed."),
        W(1120),
        U("the database is locked error came back when sync runs during search. I thought WAL "
          "fixed that?? and it doesn't even wait the 5s, it fails instantly. with -v:\n\n"
          "error: another fieldnotes process is writing the index; try again\n"
          "  caused by: SqliteFailure(Error { code: DatabaseBusy, extended_code: 517 }, Some(\"database is locked\"))",
          "fn-db-locked-3"),
        A("The extended code is the key: **517 is `SQLITE_BUSY_SNAPSHOT`**, not the 5 we fixed on "
          "Oct 1. In WAL mode a *deferred* transaction starts as a reader with a snapshot. If it "
          "later tries to write and another connection has committed since, SQLite refuses "
          "**immediately**: the busy handler isn't called because waiting can't make the "
          "snapshot current. So `busy_timeout` doesn't apply. Looking for read-then-write "
          "transactions:"),
        bash("rg -n 'transaction\\(\\)' src/", "Find deferred transactions", r"""src/index.rs:19:    let tx = store.conn_mut().transaction()?;
src/store/mod.rs:209:        let tx = self.conn.transaction()?;
src/store/migrations.rs:12:        let tx = conn.transaction()?;"""),
        A("""Both write paths have exactly that shape:

1. **`index::refresh`** (start of every `search`/`list`): deferred transaction, `SELECT path, mtime, size` (snapshot), walk ~3.5k files, then upsert anything stale. A sync commit during the walk → 517.
2. **`Store::refresh_updated`** (from the Oct 15 list speed-up): reads `meta`, walks new commits, then UPDATEs. Same shape, hit by `list` right after a pull.

This has been possible since the switch to WAL; it just needs a sync commit to land during a search's folder walk, which happens when a pull brings changes.

**Fix:**
- Write transactions start as `BEGIN IMMEDIATE` (`TransactionBehavior::Immediate`): the write lock is taken up front, so a second writer waits under `busy_timeout` instead of failing on a stale snapshot.
- Don't hold that lock during slow work: `refresh` becomes `scan()` (read rows + walk, no transaction) then `apply()` in an IMMEDIATE transaction **only if** something is stale, so most searches never take the write lock. `refresh_updated` just becomes IMMEDIATE; it holds the lock briefly (HEAD unchanged: one lookup; after a pull: a few new commits).
- Re-applying what another process already applied is harmless (upserts by path; `updated` only moves forward).

Test first: two connections reproducing 517 deterministically."""),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             "    #[test]\n    fn second_writer_waits_instead_of_failing() {",
             r"""    #[test]
    fn deferred_read_then_write_after_other_commit_is_busy_snapshot() {
        let (mut a, b, _dir) = two_connections();
        let tx = a.conn.transaction().unwrap(); // DEFERRED, like refresh used to be
        let _: i64 = tx.query_row("SELECT count(*) FROM notes", [], |r| r.get(0)).unwrap(); // snapshot
        b.upsert(&note("b.md")).unwrap();
        let err = tx.execute("INSERT INTO notes (path, title, mtime, size, body) VALUES ('a.md', 'a', 0, 0, 'a')", []).unwrap_err();
        assert!(matches!(err, rusqlite::Error::SqliteFailure(e, _) if e.extended_code == 517), "{err:?}");
    }

    #[test]
    fn second_writer_waits_instead_of_failing() {""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        edit("/home/mira/src/fieldnotes/src/index.rs",
             r"""pub fn refresh(store: &mut Store, notes_dir: &Path) -> crate::Result<Refreshed> {
    let tx = store.conn_mut().transaction()?;""",
             r"""/// Stale scan in two steps so the write lock is never held during the (slow) folder walk.
pub fn refresh(store: &mut Store, notes_dir: &Path) -> crate::Result<Refreshed> {
    let plan = scan(store, notes_dir)?; // no transaction: each statement sees the latest commit
    if plan.is_empty() {
        return Ok(Refreshed::default()); // nothing stale: no write transaction at all
    }
    apply(store, notes_dir, plan)
}

pub fn apply(store: &mut Store, notes_dir: &Path, plan: Plan) -> crate::Result<Refreshed> {
    // IMMEDIATE: take the write lock now, so a concurrent writer makes us wait (busy_timeout)
    // instead of failing later with SQLITE_BUSY_SNAPSHOT (517) on a stale read snapshot.
    let tx = store.conn_mut().transaction_with_behavior(TransactionBehavior::Immediate)?;""",
             "The file /home/mira/src/fieldnotes/src/index.rs has been updated successfully."),
        bash("sed -i 's/let tx = self.conn.transaction()?;/let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;/' src/store/mod.rs && "
             "sed -i 's/let tx = conn.transaction()?;/let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;/' src/store/migrations.rs && "
             "rg -c 'transaction\\(\\)' src/; cargo nextest run 2>&1 | tail -1 && cargo build --release -q && cp target/release/fieldnotes ~/.cargo/bin/ && "
             "( for i in $(seq 1 10); do git -C ~/notes reset -q --hard HEAD~1 && fieldnotes sync >/dev/null 2>>/tmp/sync.err; done ) & "
             "errs=0; for i in $(seq 1 500); do fieldnotes search tomato >/dev/null 2>>/tmp/search.err || errs=$((errs+1)); done; wait; echo \"search errors: $errs\"",
             "IMMEDIATE elsewhere too; tests; 10 pulls against 500 searches", r"""     Summary [   2.164s] 50 tests run: 50 passed, 1 skipped
search errors: 0"""),
        A("""Fixed; the cause differs from Oct 1.

- **517 = `SQLITE_BUSY_SNAPSHOT`**: a deferred WAL transaction that read first can't write after another connection committed, and SQLite refuses at once without calling the busy handler, so `busy_timeout = 5000` never applied. (Oct 1 was code 5, plain contention.)
- **Fix:** `index::refresh` = `scan()` with no transaction, then `apply()` in a `TransactionBehavior::Immediate` transaction only if something is stale; `refresh_updated` and migrations use IMMEDIATE too. No deferred `transaction()` left in `src/`.
- **Test** `deferred_read_then_write_after_other_commit_is_busy_snapshot` reproduces `extended_code: 517`; 50 passed, 1 skipped. Stress: 10 pulls against 500 searches, 0 errors.

Rule for later: in WAL mode, a transaction that reads then writes should be `BEGIN IMMEDIATE`."""),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-10-22 Claude Code: cargo-dist releases, tag/version mismatch, macOS arm64, Gatekeeper
# ---------------------------------------------------------------------------------------------

S13 = {
    "session_id": "d06b8e3f-7c21-4a59-b4e7-90f3a1c6d285",
    "start": "2026-10-22T16:40:00Z",
    "turns": [
        U("I want to publish binaries for v0.2.0: macOS arm64 (my laptop), linux x86_64 (this "
          "machine), windows x86_64 why not. cargo-dist in GitHub Actions on v* tags, with the "
          "shell installer (+ powershell for windows). no homebrew tap yet", "fn-release-1"),
        bash("curl --proto '=https' --tlsv1.2 -LsSf https://github.com/axodotdev/cargo-dist/releases/latest/download/cargo-dist-installer.sh | sh 2>&1 | tail -3; dist --version",
             "Install cargo-dist (the `dist` binary)", r"""installing to /home/mira/.cargo/bin
  dist
everything's installed!
cargo-dist 0.30.2"""),
        A("`dist init` is an interactive questionnaire, awkward from here, so I'll write the "
          "config it would produce and run `dist generate`, the non-interactive part that "
          "writes the workflow."),
        write("/home/mira/src/fieldnotes/dist-workspace.toml", r"""[workspace]
members = ["cargo:."]

# Config for 'dist'
[dist]
cargo-dist-version = "0.30.2"
ci = "github"
installers = ["shell", "powershell"]
targets = ["aarch64-apple-darwin", "x86_64-unknown-linux-gnu", "x86_64-pc-windows-msvc"]
install-path = "CARGO_HOME"
install-updater = false
pr-run-mode = "plan"
"""),
        bash("dist generate", "Generate the release workflow", r"""  × You've enabled GitHub CI, but your packages don't have a repository URL set.
  help: add `repository = "https://github.com/OWNER/REPO"` to [package] in Cargo.toml""", is_error=True),
        edit("/home/mira/src/fieldnotes/Cargo.toml",
             "edition = \"2024\"",
             "edition = \"2024\"\ndescription = \"Plain-text notes with full-text search\"\nrepository = \"https://github.com/mirak/fieldnotes\"\nlicense = \"MIT\"",
             "The file /home/mira/src/fieldnotes/Cargo.toml has been updated successfully."),
        bash("dist generate && dist plan 2>&1 | grep -E 'announcing|tar.xz$|zip$|installer'", "Generate and show the plan", r"""✔ generated CI scripts to .github/workflows/release.yml
announcing v0.1.0
    fieldnotes-installer.sh
    fieldnotes-installer.ps1
    fieldnotes-aarch64-apple-darwin.tar.xz
    fieldnotes-x86_64-pc-windows-msvc.zip
    fieldnotes-x86_64-unknown-linux-gnu.tar.xz"""),
        A("""Release setup is in place; nothing is published until you push a tag.

- `dist-workspace.toml`: dist 0.30.2, GitHub CI, the three targets, shell + PowerShell installers into `~/.cargo/bin`, no self-updater, `pr-run-mode = "plan"` (PRs only run the cheap plan job). I also added `[profile.dist]` (release + thin LTO) to `Cargo.toml`.
- `Cargo.toml` gained `description`, `repository = "https://github.com/mirak/fieldnotes"` (dist refuses without it, the installers download from GitHub releases) and `license = "MIT"` (a guess, change it if needed).
- `.github/workflows/release.yml` is generated: don't edit it by hand, change `dist-workspace.toml` and re-run `dist generate`.

To release: set `version = "0.2.0"` in `Cargo.toml` (the plan still says 0.1.0), commit, `git tag v0.2.0 && git push origin main v0.2.0`."""),
        W(48),
        U("pushed tag v0.2.0 and the release workflow died in the plan job after 20s:\n\n"
          "  × This workflow was triggered by tag v0.2.0, but no package in the workspace has version 0.2.0\n"
          "  help: found fieldnotes 0.1.0\n\nfacepalm. fix it please", "fn-release-tag-1"),
        A("The tag points at a commit where `Cargo.toml` still says 0.1.0. No release exists "
          "(the plan job failed before anything was uploaded), so moving the tag is safe: bump, "
          "commit, re-point `v0.2.0`, force-push just that tag."),
        edit("/home/mira/src/fieldnotes/Cargo.toml", "version = \"0.1.0\"", "version = \"0.2.0\"",
             "The file /home/mira/src/fieldnotes/Cargo.toml has been updated successfully."),
        bash("cargo build -q && git commit -qam 'release: 0.2.0' && git tag -f v0.2.0 && git push -q origin main && git push -q --force origin v0.2.0 && sleep 20 && "
             "gh run watch --exit-status $(gh run list --workflow release.yml --limit 1 --json databaseId -q '.[0].databaseId') | tail -8",
             "Bump, retag and watch the release run", r"""✓ plan in 38s (ID 53710022914)
✓ build-local-artifacts (x86_64-unknown-linux-gnu) in 3m04s (ID 53710062210)
✓ build-local-artifacts (x86_64-pc-windows-msvc) in 4m51s (ID 53710062203)
X build-local-artifacts (aarch64-apple-darwin) in 2m47s (ID 53710062198)
- build-global-artifacts (skipped)
- host (skipped)
- announce (skipped)""", is_error=True),
        A("""The version mismatch is fixed: `Cargo.toml` is 0.2.0, `v0.2.0` points at that commit, and the plan job passes. (Next time, `dist plan` locally shows `announcing v0.2.0` when they line up.)

But a different job failed: **`build-local-artifacts (aarch64-apple-darwin)`**. Linux and Windows built; because one build failed, `host` was skipped, so still **no release is published** and the tag can move again. Want me to look at the macOS arm64 log?"""),
        W(6),
        U("yes, the mac arm64 one. from the log:\n\n"
          "  = note: ld: warning: ignoring file '/usr/local/Cellar/openssl@3/3.5.2/lib/libssl.3.dylib': found architecture 'x86_64', required architecture 'arm64'\n"
          "          Undefined symbols for architecture arm64:\n"
          "            \"_EVP_CIPHER_CTX_new\", referenced from:\n"
          "                __libssh2_cipher_init in liblibssh2_sys-6c1d3e0a9b2f4e51.rlib[12](openssl.o)\n"
          "          ld: symbol(s) not found for architecture arm64",
          "fn-release-arm64-1"),
        bash("dist plan --output-format=json | jq -c '.ci.github.artifacts_matrix.include[] | {targets, runner}' && cargo tree -i openssl-sys -e normal --depth 1",
             "Which runner builds arm64, and who pulls in OpenSSL", r"""{"targets":["aarch64-apple-darwin"],"runner":"macos-13"}
{"targets":["x86_64-unknown-linux-gnu"],"runner":"ubuntu-22.04"}
{"targets":["x86_64-pc-windows-msvc"],"runner":"windows-2022"}
openssl-sys v0.9.109
├── git2 v0.20.2
├── libgit2-sys v0.18.2+1.9.1
└── libssh2-sys v0.3.1"""),
        A("""That explains it: dist builds `aarch64-apple-darwin` on **`macos-13`**, an Intel runner, cross-compiling to arm64. `libssh2-sys` (git2's ssh support) needs OpenSSL, and `openssl-sys` finds Homebrew's **x86_64** OpenSSL under `/usr/local`, which can't link into an arm64 binary.

Two fixes, and we want both:
1. **Build on an arm64 runner** (`macos-14`): native, no cross-compilation surprises.
2. **`vendored-openssl`**: compile OpenSSL from source and link it statically. Without it, a native arm64 build would link Homebrew's `/opt/homebrew/opt/openssl@3/lib/libssl.3.dylib` **dynamically**, and on any Mac without that package the binary would die at launch with `dyld: Library not loaded`. Worse than a CI failure, because it ships.

And since you only use ssh remotes, git2's `https` feature (another OpenSSL user on Linux) can go."""),
        edit("/home/mira/src/fieldnotes/Cargo.toml",
             "git2 = \"0.20.2\"",
             "# ssh remotes only; OpenSSL vendored and static so release binaries don't depend on a\n# Homebrew (or distro) libssl at runtime.\ngit2 = { version = \"0.20.2\", default-features = false, features = [\"ssh\", \"vendored-openssl\"] }",
             "The file /home/mira/src/fieldnotes/Cargo.toml has been updated successfully."),
        edit("/home/mira/src/fieldnotes/dist-workspace.toml",
             "pr-run-mode = \"plan\"\n",
             "pr-run-mode = \"plan\"\n\n# Build arm64 natively: the default macos-13 runner is Intel and cross-links against x86_64\n# Homebrew libraries.\n[dist.github-custom-runners]\naarch64-apple-darwin = \"macos-14\"\n",
             "The file /home/mira/src/fieldnotes/dist-workspace.toml has been updated successfully."),
        bash("dist generate && cargo build --release 2>&1 | grep -E 'openssl-src|Finished'; ldd target/release/fieldnotes | grep -ciE 'ssl|crypto'; cargo nextest run 2>&1 | tail -1",
             "Regenerate, build with vendored OpenSSL locally, check linkage, test", r"""✔ generated CI scripts to .github/workflows/release.yml
   Compiling openssl-src v300.5.2+3.5.2
    Finished `release` profile [optimized] target(s) in 1m 52s
0
     Summary [   2.233s] 50 tests run: 50 passed, 1 skipped"""),
        bash("git commit -qam 'release: build aarch64-apple-darwin on macos-14, vendored static OpenSSL' && git tag -f v0.2.0 && git push -q origin main && git push -q --force origin v0.2.0 && sleep 20 && "
             "gh run watch --exit-status $(gh run list --workflow release.yml --limit 1 --json databaseId -q '.[0].databaseId') | grep -E 'aarch64|host' && "
             "cd /tmp && gh release download v0.2.0 -R mirak/fieldnotes -p '*aarch64-apple-darwin.tar.xz' --clobber && tar xf fieldnotes-aarch64-apple-darwin.tar.xz && "
             "llvm-objdump --macho --dylibs-used fieldnotes-aarch64-apple-darwin/fieldnotes",
             "Retag, watch, then check what the published mac binary links against", r"""✓ build-local-artifacts (aarch64-apple-darwin) in 3m21s (ID 53714451873)
✓ host in 24s (ID 53714802551)
fieldnotes-aarch64-apple-darwin/fieldnotes:
	/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation (compatibility version 150.0.0, current version 3502.1.255)
	/System/Library/Frameworks/Security.framework/Versions/A/Security (compatibility version 1.0.0, current version 61439.120.27)
	/usr/lib/libiconv.2.dylib (compatibility version 7.0.0, current version 7.0.0)
	/usr/lib/libz.1.dylib (compatibility version 1.0.0, current version 1.2.12)
	/usr/lib/libSystem.B.dylib (compatibility version 1.0.0, current version 1351.0.0)"""),
        A("""v0.2.0 is released with all three builds: https://github.com/mirak/fieldnotes/releases/tag/v0.2.0

**Cause:** dist's default runner for `aarch64-apple-darwin` was `macos-13` (Intel); cross-linking picked up Homebrew's x86_64 OpenSSL, which `libssh2-sys` needs: `found architecture 'x86_64', required architecture 'arm64'`, `_EVP_CIPHER_CTX_new` undefined.

**Fix:**
- `dist-workspace.toml`: `[dist.github-custom-runners] aarch64-apple-darwin = "macos-14"`, then `dist generate` updated `.github/workflows/release.yml`.
- `Cargo.toml`: `git2 = { version = "0.20.2", default-features = false, features = ["ssh", "vendored-openssl"] }`. OpenSSL 3.5.2 is built from source and linked statically; `https` dropped.

Checked the published binary with `llvm-objdump --macho --dylibs-used`: only system frameworks and `/usr/lib`, no Homebrew paths. `ldd` on Linux shows no libssl either. Cost: clean release builds compile OpenSSL (~2 min).

The tag was force-moved twice today, safe only because nothing was published; from now on fixes get a new version."""),
        W(190),
        U("tried it on my mac. the curl | sh installer works 👍 but first I downloaded the tar.xz "
          "in safari, unpacked it and ran it and got \"“fieldnotes” Not Opened. Apple could not "
          "verify “fieldnotes” is free of malware that may harm your Mac or compromise your "
          "privacy.\" do I need to sign it? how much work is that", "fn-release-gatekeeper-1"),
        A("""That's Gatekeeper, and it only hits the browser path:

- Browsers set the `com.apple.quarantine` attribute on downloads, and unpacking carries it to the binary. Gatekeeper then wants a Developer ID signature **and** notarization. `curl` sets no quarantine attribute, so the installer's binary is never checked.
- For the copy you have: `xattr -d com.apple.quarantine ~/Downloads/fieldnotes-aarch64-apple-darwin/fieldnotes` (or System Settings → Privacy & Security → "Open Anyway").

Doing it properly: Apple Developer Program ($99/year), a "Developer ID Application" certificate stored in GitHub secrets, signing with the hardened runtime (dist can sign macOS binaries from such secrets; that support is marked experimental), plus a separate `xcrun notarytool submit --wait` step. A bare binary can't have the ticket stapled, so Gatekeeper checks online on first launch.

For a tool used by you and maybe a few friends I'd skip that and document the supported paths. Adding it to the README."""),
        edit("/home/mira/src/fieldnotes/README.md",
             "## Usage\n",
             r"""## Install

macOS (Apple Silicon), Linux x86_64:

    curl --proto '=https' --tlsv1.2 -LsSf https://github.com/mirak/fieldnotes/releases/latest/download/fieldnotes-installer.sh | sh

The macOS binaries are not signed or notarized. The installer is not affected; an archive
downloaded with a browser is refused ("Apple could not verify “fieldnotes” is free of
malware"). Remove the quarantine flag once: `xattr -d com.apple.quarantine /path/to/fieldnotes`

## Usage
""",
             "The file /home/mira/src/fieldnotes/README.md has been updated successfully."),
        A("Added an **Install** section to `README.md`: the shell installer one-liner, and a note "
          "that the macOS binaries aren't signed/notarized, with the `xattr -d "
          "com.apple.quarantine` fix for browser downloads. Decision recorded: no signing for "
          "now; revisit if fieldnotes gets users who download from the releases page."),
        W(15),
        U("switch this machine to the released binary instead of my cp'd dev build", "fn-install-release-1"),
        bash("curl --proto '=https' --tlsv1.2 -LsSf https://github.com/mirak/fieldnotes/releases/latest/download/fieldnotes-installer.sh | sh 2>&1 | tail -2 && "
             "which fieldnotes && fieldnotes --version && systemctl --user start fieldnotes-sync.service && journalctl --user -u fieldnotes-sync -n 1 -o cat",
             "Install v0.2.0 via the shell installer, check the timer still works", r"""  fieldnotes
everything's installed!
/home/mira/.cargo/bin/fieldnotes
fieldnotes 0.2.0
synced: 0 files committed, pushed main to origin"""),
        A("`~/.cargo/bin/fieldnotes` is now the released 0.2.0 from the installer (same path the "
          "systemd unit uses, and a manual run of the sync service worked). Heads-up: a later "
          "`cp target/release/fieldnotes ~/.cargo/bin/` would overwrite it again; `cargo run "
          "--release --` avoids that while developing."),
    ],
}


# ---------------------------------------------------------------------------------------------
# 2026-10-30 Claude Code: completions, edit with $EDITOR, renaming tags, index maintenance
# ---------------------------------------------------------------------------------------------

S14 = {
    "session_id": "47c2a0e5-8d3b-4f16-9a7e-b5e1d04c9f72",
    "start": "2026-10-30T10:15:00Z",
    "turns": [
        U("zsh completions pls. `fieldnotes completions zsh > ~/.zfunc/_fieldnotes`", "fn-completions-1"),
        edit("/home/mira/src/fieldnotes/src/cli/mod.rs",
             "    /// Developer tools (not shown in --help)",
             r"""    /// Print a shell completion script: fieldnotes completions zsh > ~/.zfunc/_fieldnotes
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Developer tools (not shown in --help)""",
             "The file /home/mira/src/fieldnotes/src/cli/mod.rs has been updated successfully."),
        bash("cargo add clap_complete -q && cargo build -q && ./target/debug/fieldnotes completions zsh | head -2 && ./target/debug/fieldnotes completions zsh | grep -c gen-notes; "
             "./target/debug/fieldnotes completions zsh > ~/.zfunc/_fieldnotes && grep -n 'zfunc\\|compinit' ~/.zshrc",
             "Generate, check hidden dev is absent, install, check fpath", r"""#compdef fieldnotes

0
14:autoload -Uz compinit && compinit"""),
        edit("/home/mira/.zshrc",
             "autoload -Uz compinit && compinit",
             "fpath=(~/.zfunc $fpath)\nautoload -Uz compinit && compinit",
             "The file /home/mira/.zshrc has been updated successfully."),
        A("""`fieldnotes completions <shell>` is in (zsh, bash, fish, elvish, powershell via `clap_complete::Shell`). It doesn't load config or the index, so it works even with a broken config.toml; the hidden `dev` subcommand is left out.

Installed `~/.zfunc/_fieldnotes` and added `fpath=(~/.zfunc $fpath)` to `~/.zshrc` before `compinit` (order matters). Open a new shell, or `rm ~/.zcompdump*; exec zsh` if zsh cached the old list. Tag names for `--tag` would need clap_complete's dynamic completion, still behind an unstable feature, so not included."""),
        W(22),
        U("`fieldnotes edit <words>` should open the best search match in my editor (config "
          "editor > $VISUAL > $EDITOR > vi) and reindex that note when the editor exits. my "
          "config has editor = \"code --wait\"", "fn-edit-1"),
        write("/home/mira/src/fieldnotes/src/cli/edit.rs", r"""use std::process::Command;

use crate::{config::Config, error::{Error, IoResultExt}, index, store::Store};

pub fn run(cfg: &Config, store: &mut Store, words: &[String]) -> crate::Result<()> {
    index::refresh(store, &cfg.notes_dir)?;
    let hits = store.search_words(&words.join(" "), 5, ("", ""))?;
    let best = hits.first().ok_or_else(|| Error::Usage(format!("no note matches {:?}", words.join(" "))))?;
    eprintln!("opening {}", best.path);
    let editor = cfg.editor.clone()
        .or_else(|| std::env::var("VISUAL").ok().filter(|s| !s.is_empty()))
        .or_else(|| std::env::var("EDITOR").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "vi".into());
    Command::new(&editor).arg(cfg.notes_dir.join(&best.path)).status().at(editor.as_ref())?;
    index::refresh(store, &cfg.notes_dir)?;
    Ok(())
}
"""),
        bash("cargo build -q && ./target/debug/fieldnotes edit garlic", "Try it with editor = \"code --wait\"", r"""opening garden/2026-10-14-garlic.md
error: reading code --wait
  caused by: No such file or directory (os error 2)""", is_error=True),
        A("`Command::new(\"code --wait\")` looks for a program literally named `code --wait`. The "
          "setting is a small command line, like git's `core.editor`, so it needs splitting with "
          "shell quoting rules (`shell-words`), which also makes `'/opt/My Editor/ed' -w` work. "
          "And \"reading code --wait\" is a misleading message; it gets its own error variant."),
        edit("/home/mira/src/fieldnotes/src/cli/edit.rs",
             "    Command::new(&editor).arg(cfg.notes_dir.join(&best.path)).status().at(editor.as_ref())?;",
             r"""    let argv = shell_words::split(&editor).map_err(|e| Error::Usage(format!("editor {editor:?}: {e}")))?;
    let (program, args) = argv.split_first().ok_or_else(|| Error::Usage("editor setting is empty".into()))?;
    let status = Command::new(program)
        .args(args)
        .arg(cfg.notes_dir.join(&best.path))
        .status()
        .map_err(|source| Error::Editor { command: editor.clone(), source })?;
    if !status.success() {
        eprintln!("warning: {editor} exited with {status}; reindexing anyway");
    }""",
             "The file /home/mira/src/fieldnotes/src/cli/edit.rs has been updated successfully."),
        bash("cargo add shell-words -q && cargo build -q && ./target/debug/fieldnotes edit garlic; echo \"exit=$?\"; EDITOR=nonexistent-ed ./target/debug/fieldnotes --config /dev/null edit garlic; cargo nextest run 2>&1 | tail -1",
             "Try again, plus a missing editor", r"""opening garden/2026-10-14-garlic.md
exit=0
opening garden/2026-10-14-garlic.md
error: could not start editor `nonexistent-ed` (set `editor` in config.toml, or $VISUAL / $EDITOR)
  caused by: No such file or directory (os error 2)
     Summary [   2.318s] 53 tests run: 53 passed, 1 skipped"""),
        A("""`fieldnotes edit <words>` works with `code --wait`.

- Opens the top hit of the same word search as `fieldnotes search` and prints which file.
- Editor: config `editor` → `$VISUAL` → `$EDITOR` → `vi`, split with `shell-words` like git's `core.editor`. My first version passed the whole string as the program name and failed with the confusing `reading code --wait`; a missing editor now says `could not start editor …`.
- After the editor exits, the stale scan reindexes the note; a non-zero exit is only a warning.

Keep the `--wait`: without it VS Code returns immediately and the reindex runs before you've typed anything. 53 passed, 1 skipped (perf)."""),
        W(31),
        U("`fieldnotes tags rename project/garden area/garden`: rewrite the tag in the front "
          "matter of every note that has it, including the subtree (project/garden/beds → "
          "area/garden/beds). rest of each file must stay byte-identical. dry run first",
          "fn-tags-rename-1"),
        A("Simplest would be: parse the YAML, change tags, serialize back with serde_yaml. "
          "Checking what that does to a real note first."),
        bash("mkdir -p examples && cat > examples/yaml_roundtrip.rs <<'EOF'\n"
             "fn main() { let s = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap(); let y = s.split(\"---\\n\").nth(1).unwrap(); "
             "let v: serde_yaml::Value = serde_yaml::from_str(y).unwrap(); print!(\"{}\", serde_yaml::to_string(&v).unwrap()); }\nEOF\n"
             "cargo run -q --example yaml_roundtrip ~/notes/garden/2026-09-14-raised-bed.md | diff <(sed -n '2,/^---$/p' ~/notes/garden/2026-09-14-raised-bed.md | sed '$d') -; rm -r examples",
             "Experiment: serde_yaml round trip on a real note (throwaway example)", r"""1c1
< title: "Raised bed #3: soil mix"
---
> title: 'Raised bed #3: soil mix'
3,4c3
< created: 2026-09-14   # planted same day
< tags: [project/garden, area/garden/soil]
---
> created: 2026-09-14
> tags:
> - project/garden
> - area/garden/soil""", is_error=True),
        A("As feared: quote style changed, the `# planted same day` comment dropped, the flow "
          "list turned into a block list. So no serde round trip: a targeted rewrite of only the "
          "tag values inside the front matter fence, for the three shapes your notes use (`tags: "
          "[a, b]`, Bear's `tags: a, b`, and `- a` block items), keeping quotes, a leading `#` "
          "and trailing comments. Everything else is copied byte for byte."),
        write("/home/mira/src/fieldnotes/src/tags_rename.rs", r"""//! Renaming a tag (and its subtree) inside notes' front matter without reformatting them.
//! Only tag values on the `tags:` line or its `- item` lines change; every other byte stays.

use crate::frontmatter::normalize_tag;

/// `project/garden` → `area/garden`, `project/garden/beds` → `area/garden/beds`, else None.
pub fn renamed(tag: &str, old: &str, new: &str) -> Option<String> {
    let t = normalize_tag(tag)?;
    if t == old {
        return Some(new.to_string());
    }
    t.strip_prefix(old)?.strip_prefix('/').map(|rest| format!("{new}/{rest}"))
}

/// The file with renamed tags, or None when nothing in its front matter changes.
pub fn rewrite(text: &str, old: &str, new: &str) -> Option<String> {
    let (start, end) = crate::frontmatter::fence_span(text)?;
    let (mut out, mut in_block, mut changed) = (String::from(&text[..start]), false, false);
    for line in text[start..end].split_inclusive('\n') {
        let replaced = if let Some(rest) = line.strip_prefix("tags:") {
            in_block = rest.trim().is_empty();
            rewrite_inline(rest, old, new).map(|r| format!("tags:{r}")) // [a, b] or a, b
        } else if in_block && line.trim_start().starts_with("- ") {
            let (indent, item) = line.split_at(line.find("- ").unwrap() + 2);
            rewrite_scalar(item, old, new).map(|r| format!("{indent}{r}")) // keeps quotes, #, comment
        } else {
            in_block &= line.trim().is_empty();
            None
        };
        changed |= replaced.is_some();
        out.push_str(replaced.as_deref().unwrap_or(line));
    }
    out.push_str(&text[end..]);
    changed.then_some(out)
}
"""),
        bash("cargo nextest run tags_rename 2>&1 | tail -1 && cargo build --release -q && ./target/release/fieldnotes tags rename project/garden area/garden --dry-run | head -4",
             "Unit tests, then a dry run on the real notes", r"""     Summary [   0.012s] 9 tests run: 9 passed, 45 skipped
would rename project/garden → area/garden in 73 notes (3 of them in the subtree):
  garden/2026-09-14-raised-bed.md         tags: [project/garden, area/garden/soil]  →  tags: [area/garden, area/garden/soil]
  garden/beds/bed-3.md                    - project/garden/beds  →  - area/garden/beds
  garden/2025-05-seed-order.md            tags: ["#project/garden"]  →  tags: ["#area/garden"]"""),
        bash("./target/release/fieldnotes tags rename project/garden area/garden && git -C ~/notes diff --stat | tail -1 && ./target/release/fieldnotes tags | grep garden",
             "Real run, then the diff size and counts", r"""renamed project/garden → area/garden in 73 notes; run `fieldnotes sync` to commit
 73 files changed, 73 insertions(+), 73 deletions(-)
  161  area/garden
    9  area/garden/soil
    3  area/garden/beds"""),
        A("""`fieldnotes tags rename OLD NEW [--dry-run]` is in, and your rename is done: 73 notes, exactly one changed line each (73 insertions, 73 deletions), uncommitted; `fieldnotes sync` will commit them.

- Affected notes come from the index with the same range query as `list --tag` (`project/garden` plus `['project/garden/', 'project/garden0')`), so `project/garden/beds` → `area/garden/beds` too.
- `src/tags_rename.rs` rewrites only tag values inside the front matter fence (flow lists, Bear comma strings, block lists), matching on the normalized form, keeping quotes, `#` and comments. A test asserts every other byte is identical.
- **Dead end:** a serde_yaml round trip changed `"Raised bed #3: soil mix"` to single quotes, dropped the `# planted same day` comment and reformatted the list.

`fieldnotes tags` now shows `area/garden` 161, `area/garden/soil` 9, `area/garden/beds` 3, and no `project/garden`."""),
        W(45),
        U("index.db is 47 MB now, it was 39 right after the trigram switch + VACUUM and I think "
          "it grows a bit with every sync. is that expected? anything to do", "fn-fts-optimize-1"),
        bash("S=~/.local/opt/sqlite-3.50/sqlite3; DB=~/.local/share/fieldnotes/index.db; ls -l $DB; "
             "$S $DB \"PRAGMA page_count; PRAGMA freelist_count; SELECT count(*) FROM notes_fts_data\"; "
             "cp $DB /tmp/opt.db && time $S /tmp/opt.db \"INSERT INTO notes_fts(notes_fts) VALUES('optimize'); VACUUM;\" && ls -l /tmp/opt.db && $S /tmp/opt.db 'SELECT count(*) FROM notes_fts_data'",
             "Pages, free pages, FTS5 segment rows; then optimize + VACUUM on a copy", r"""-rw-r--r-- 1 mira mira 47431680 Oct 30 11:02 /home/mira/.local/share/fieldnotes/index.db
11580
1473
9814

real	0m2.914s
user	0m1.602s
sys	0m0.811s
-rw-r--r-- 1 mira mira 38850560 Oct 30 11:06 /tmp/opt.db
1297"""),
        A("""Expected, two effects:

1. **FTS5 segments**: every insert/update/delete adds a small segment instead of editing the index b-trees; FTS5 merges lazily (`automerge`), and old entries of changed notes linger until then. Today's 73-note rename and each sync reindex add to it: 9,814 rows in `notes_fts_data`.
2. **Free pages**: SQLite never shrinks the file itself; 1,473 of 11,580 pages (5.8 MB) are free and get reused before it grows.

On a copy, `'optimize'` (merge all segments) + `VACUUM` takes 2.9 s: 47.4 → 38.9 MB, 1,297 segment rows. Worth having, but **not** after every sync: `VACUUM` rewrites the file holding the write lock throughout, which would bring the "another fieldnotes process is writing" errors back for searches. So an explicit command, plus SQLite's cheap `PRAGMA optimize` on close (planner statistics only)."""),
        edit("/home/mira/src/fieldnotes/src/store/mod.rs",
             "    pub fn set_tags(",
             r"""    /// Compacts the index: merge FTS5 segments into one, rewrite the file without free pages,
    /// truncate the WAL. Takes seconds and locks out writers meanwhile: run it on purpose.
    pub fn maintenance(&mut self) -> crate::Result<(u64, u64)> {
        let before = self.file_size()?;
        self.conn.execute_batch("INSERT INTO notes_fts(notes_fts) VALUES('optimize'); VACUUM;")?;
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok((before, self.file_size()?))
    }

    pub fn set_tags(""",
             "The file /home/mira/src/fieldnotes/src/store/mod.rs has been updated successfully."),
        bash("cargo nextest run 2>&1 | tail -1 && cargo build --release -q && cp target/release/fieldnotes ~/.cargo/bin/ && fieldnotes maintenance && time fieldnotes search trigram -n 1 >/dev/null",
             "Tests, run it for real, check search speed", r"""     Summary [   2.401s] 55 tests run: 55 passed, 1 skipped
index: 47.4 MB → 38.9 MB (FTS5 segments merged, 1,473 free pages released, WAL truncated)

real	0m0.019s
user	0m0.008s
sys	0m0.010s"""),
        A("""`fieldnotes maintenance` compacted your index **47.4 MB → 38.9 MB**.

- `Store::maintenance()`: `INSERT INTO notes_fts(notes_fts) VALUES('optimize')`, `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`, prints before/after. About 3 s.
- `PRAGMA optimize` when a `Store` is dropped (cheap).
- Not automatic on purpose (VACUUM holds the write lock). If you want it hands-off, a weekly systemd timer next to the sync one is the place; ~8 MB of growth in six weeks doesn't call for more.

55 passed, 1 skipped."""),
        W(9),
        U("delete scripts/gen_notes.py and commit everything from today", "fn-commit-cleanup-1"),
        bash("git rm -q scripts/gen_notes.py && git add -A && git commit -q -m 'completions, edit via $EDITOR, tags rename, index maintenance; drop gen_notes.py' && git log --oneline -1",
             "Remove the script and commit", r"""e41b7a9 completions, edit via $EDITOR, tags rename, index maintenance; drop gen_notes.py"""),
        A("Removed `scripts/gen_notes.py` (replaced by `fieldnotes dev gen-notes`) and committed "
          "today's work as `e41b7a9`."),
    ],
}

SESSIONS = [S01, S02, S03, S04, S05, S06, S07, S08, S09, S10, S11, S12, S13, S14]


# ---------------------------------------------------------------------------------------------
# Recall queries Mira might ask later. Grades: 3 answers it, 2 substantially helpful,
# 1 related, 0 looks relevant but is not.
# ---------------------------------------------------------------------------------------------

QUERIES = [
    {"query_id": "fn-q01", "query": "busy_timeout", "type": "exact_term",
     "judgments": {"fn-db-locked-1": 3, "fn-db-locked-3": 2, "fn-thiserror-2": 1, "cg-errors-2": 1}},
    {"query_id": "fn-q02", "query": "fts5: syntax error near \"-\"", "type": "error",
     "judgments": {"fn-fts-hyphen-1": 3, "fn-fts-raw-2": 1, "cg-fts-tokenizer-1": 1, "fn-trigram-2": 0}},
    {"query_id": "fn-q03", "query": "why did we move the full-text index to substring matching",
     "type": "conceptual",
     "judgments": {"fn-trigram-1": 3, "cg-fts-tokenizer-2": 2, "cg-fts-tokenizer-3": 1, "fn-trigram-2": 1}},
    {"query_id": "fn-q04", "query": "what does migrations/0003_fts5_trigram.sql do", "type": "file_path",
     "judgments": {"fn-trigram-1": 3, "fn-trigram-2": 1, "fn-sqlite-version-1": 1, "fn-migrations-1": 0}},
    {"query_id": "fn-q05", "query": "should the notes files or the sqlite db be the source of truth",
     "type": "conceptual",
     "judgments": {"cg-embedded-db-3": 3, "cg-embedded-db-1": 2, "fn-db-locked-2": 1}},
    {"query_id": "fn-q06", "query": "authentication required but no callback set", "type": "error",
     "judgments": {"fn-sync-git2-1": 3, "fn-ssh-auth-1": 2}},
    {"query_id": "fn-q07", "query": "sync hangs at 100% cpu with the 1password ssh agent", "type": "mixed",
     "judgments": {"fn-ssh-auth-1": 3, "fn-ssh-auth-2": 2, "fn-sync-git2-1": 1}},
    {"query_id": "fn-q08", "query": "what happens when both machines edited the same note before syncing",
     "type": "conceptual",
     "judgments": {"cg-sync-conflict-1": 3, "fn-sync-conflict-impl-1": 2, "cg-sync-conflict-3": 1,
                   "cg-sync-conflict-2": 1}},
    {"query_id": "fn-q09", "query": "EX_TEMPFAIL", "type": "exact_term",
     "judgments": {"fn-thiserror-2": 3, "cg-errors-2": 2, "fn-exit75-question-1": 2}},
    {"query_id": "fn-q10", "query": "why keep anyhow only in main and an error enum everywhere else",
     "type": "conceptual",
     "judgments": {"cg-errors-1": 3, "fn-thiserror-1": 2, "cg-errors-3": 1}},
    {"query_id": "fn-q11", "query": "old Simplenote notes sorted last with the year 0019", "type": "mixed",
     "judgments": {"fn-date-bug-1": 3, "fn-list-perf-1": 0}},
    {"query_id": "fn-q12", "query": ".github/workflows/release.yml mac arm64 build failing", "type": "file_path",
     "judgments": {"fn-release-arm64-1": 3, "fn-release-1": 2, "fn-release-tag-1": 1, "fn-nextest-1": 0}},
    {"query_id": "fn-q13", "query": "listing 20k notes takes 9 seconds, what was the fix", "type": "mixed",
     "judgments": {"fn-list-perf-1": 3, "fn-list-perf-2": 1, "fn-trigram-2": 0}},
    {"query_id": "fn-q14", "query": "extended_code: 517", "type": "error",
     "judgments": {"fn-db-locked-3": 3, "cg-errors-2": 2, "fn-db-locked-1": 1}},
    {"query_id": "fn-q15", "query": "fetch a tag together with everything nested under it", "type": "conceptual",
     "judgments": {"cg-tags-2": 3, "fn-tags-1": 2, "cg-tags-1": 1, "fn-tags-rename-1": 1}},
    {"query_id": "fn-q16", "query": "vendored-openssl", "type": "exact_term",
     "judgments": {"fn-release-arm64-1": 3, "fn-release-1": 1}},
    {"query_id": "fn-q17", "query": "src/config.rs config location on macOS", "type": "file_path",
     "judgments": {"fn-config-1": 3, "fn-db-locked-2": 1, "fn-scaffold-1": 1}},
    {"query_id": "fn-q18", "query": "short words like go or ui find nothing", "type": "conceptual",
     "judgments": {"fn-trigram-2": 3, "fn-trigram-1": 2, "cg-fts-tokenizer-2": 1}},
    {"query_id": "fn-q19", "query": "tantivy or sqlite for searching my notes", "type": "conceptual",
     "judgments": {"cg-embedded-db-2": 3, "cg-embedded-db-1": 1}},
    {"query_id": "fn-q20", "query": "cannot create a tree from a not fully merged index", "type": "error",
     "judgments": {"fn-sync-conflict-impl-1": 3, "cg-sync-conflict-2": 2}},
    {"query_id": "fn-q21", "query": "ExecuteReturnedResults", "type": "exact_term",
     "judgments": {"fn-db-locked-1": 3}},
    {"query_id": "fn-q22", "query": "mac refuses to open the downloaded binary, malware warning", "type": "mixed",
     "judgments": {"fn-release-gatekeeper-1": 3, "fn-install-release-1": 1}},
    {"query_id": "fn-q23", "query": "src/tags_rename.rs", "type": "file_path",
     "judgments": {"fn-tags-rename-1": 3, "cg-tags-2": 1, "cg-tags-3": 1}},
    {"query_id": "fn-q24", "query": "why isn't the index compacted automatically after every sync",
     "type": "conceptual",
     "judgments": {"fn-fts-optimize-1": 3, "fn-trigram-1": 0}},
    {"query_id": "fn-q25", "query": "cannot borrow `self.conn` as mutable because it is also borrowed as immutable",
     "type": "error",
     "judgments": {"fn-list-perf-1": 3}},
    {"query_id": "fn-q26", "query": "SSH_AUTH_SOCK in the systemd unit", "type": "mixed",
     "judgments": {"fn-ssh-auth-2": 3, "fn-ssh-auth-1": 2, "fn-exit75-question-1": 0}},
    {"query_id": "fn-q27", "query": "front matter parser panics on a note whose closing --- is the last line",
     "type": "mixed",
     "judgments": {"fn-frontmatter-1": 3, "fn-date-bug-1": 0}},
    {"query_id": "fn-q28", "query": "editor = \"code --wait\" No such file or directory", "type": "error",
     "judgments": {"fn-edit-1": 3, "fn-config-1": 1}},
]
