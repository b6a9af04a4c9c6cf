"""fieldnotes: Mira's Rust note-taking CLI, September-October 2026.

A hand-written history for the bundled sample data: Claude Code sessions in the repository
plus ChatGPT conversations where design questions were asked in a browser. The story: a clap 4
CLI over markdown notes, a rusqlite/FTS5 index (hyphenated queries, then the trigram tokenizer),
tags, git2 sync with SSH-agent trouble and conflict copies, "database is locked" twice, a
two-digit-year date bug, the thiserror refactor, a 20k-note listing fix and cargo-dist releases.

Helpers below only build the turn dicts build.py expects; every word of content is written out.
"""

PROJECT = {"name": "fieldnotes", "cwd": "/home/mira/src/fieldnotes", "git_branch": "main"}


def U(text, label):
    return {"user": text, "label": label}


def A(text):
    return {"assistant": text}


def W(minutes):
    return {"wait": minutes}


def bash(command, description, result, is_error=False):
    turn = {"tool": "Bash", "input": {"command": command, "description": description},
            "result": result}
    if is_error:
        turn["is_error"] = True
    return turn


def read(path, result):
    return {"tool": "Read", "input": {"file_path": path}, "result": result}


def edit(path, old, new, result):
    return {"tool": "Edit", "input": {"file_path": path, "old_string": old, "new_string": new},
            "result": result}


def write(path, content):
    return {"tool": "Write", "input": {"file_path": path, "content": content},
            "result": f"File created successfully at: {path}"}


def grep(pattern, result, path=None, output_mode="content", **extra):
    args = {"pattern": pattern, "output_mode": output_mode}
    if path:
        args["path"] = path
    args.update(extra)
    return {"tool": "Grep", "input": args, "result": result}


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
