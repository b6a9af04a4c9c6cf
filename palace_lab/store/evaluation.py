"""Queries, graded judgments and saved runs in the palace.

Judgments are graded 0-3 and keyed by (query, exchange, judge): the person (``human``), an
imported qrels file (``qrels:<name>``) or an LLM grader (``llm:<model>``) can all grade the same
pair; :meth:`qrels` merges them with a stated precedence (human over imported over LLM).
"""

from __future__ import annotations

import json
import uuid

from palace_lab.errors import InputError

JUDGE_PRECEDENCE = ("human", "qrels", "llm")


class EvaluationMixin:
    def put_queries(self, query_set: str, queries: list[dict]) -> int:
        from palace_lab.store.palace import now_iso

        rows = [(q["query_id"], query_set, q["query"], q.get("type"), now_iso()) for q in queries]
        with self.transaction() as tx:
            tx.executemany(
                "INSERT INTO queries VALUES (?,?,?,?,?) ON CONFLICT(query_id) DO UPDATE SET"
                " query_set=excluded.query_set, text=excluded.text, type=excluded.type", rows)
        return len(rows)

    def queries(self, query_set: str | None = None) -> list[dict]:
        sql = "SELECT query_id, query_set, text AS query, type FROM queries"
        args: tuple = ()
        if query_set:
            sql, args = sql + " WHERE query_set=?", (query_set,)
        return [dict(r) for r in self.conn.execute(sql + " ORDER BY query_id", args)]

    def query_sets(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT query_set FROM queries ORDER BY query_set")]

    def judgment_rows(self) -> list[tuple[str, str, str]]:
        """``(query_id, exchange_id, judge)`` of every judgment the palace holds."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT query_id, exchange_id, judge FROM judgments")]

    def graded_history(self, query_set: str, judge: str, limit: int) -> list[dict]:
        """The queries of ``query_set``, newest first, each with how many results ``judge``
        graded."""
        rows = self.conn.execute(
            "SELECT q.query_id, q.text, q.created_at, COUNT(j.exchange_id) AS graded FROM queries q"
            " LEFT JOIN judgments j ON j.query_id = q.query_id AND j.judge = ?"
            " WHERE q.query_set = ? GROUP BY q.query_id ORDER BY q.created_at DESC, q.query_id"
            " LIMIT ?", (judge, query_set, limit))
        return [{"query_id": r[0], "query": r[1], "created_at": r[2], "graded": r[3]} for r in rows]

    def put_judgments(self, judge: str, qrels: dict[str, dict[str, int]]) -> int:
        from palace_lab.store.palace import now_iso

        rows = []
        for qid, docs in qrels.items():
            for eid, grade in docs.items():
                if int(grade) not in (0, 1, 2, 3):
                    raise InputError(f"grade {grade!r} for {qid}/{eid} is not 0-3")
                rows.append((qid, eid, int(grade), judge, now_iso()))
        with self.transaction() as tx:
            tx.executemany("INSERT OR REPLACE INTO judgments VALUES (?,?,?,?,?)", rows)
        return len(rows)

    def delete_judgment(self, query_id: str, exchange_id: str, judge: str) -> None:
        with self.transaction() as tx:
            tx.execute("DELETE FROM judgments WHERE query_id=? AND exchange_id=? AND judge=?",
                       (query_id, exchange_id, judge))

    def qrels(self, judge: str | None = None, query_ids: list[str] | None = None) -> dict:
        """``{query_id: {exchange_id: grade}}``; with no judge, merged by precedence."""
        rows = self.conn.execute("SELECT query_id, exchange_id, grade, judge FROM judgments")
        rank = {p: i for i, p in enumerate(JUDGE_PRECEDENCE)}
        best: dict[tuple[str, str], tuple[int, int]] = {}
        for qid, eid, grade, j in rows:
            if judge is not None and j != judge:
                continue
            if query_ids is not None and qid not in query_ids:
                continue
            prio = rank.get(j.split(":", 1)[0], len(rank))
            if (qid, eid) not in best or prio < best[(qid, eid)][1]:
                best[(qid, eid)] = (grade, prio)
        out: dict[str, dict[str, int]] = {}
        for (qid, eid), (grade, _) in best.items():
            out.setdefault(qid, {})[eid] = grade
        return out

    def save_run(self, mode: str, run: dict, query_set: str | None = None) -> str:
        from palace_lab.store.palace import now_iso

        run_id = uuid.uuid4().hex[:12]
        with self.transaction() as tx:
            tx.execute("INSERT INTO runs VALUES (?,?,?,?,?)",
                       (run_id, mode, query_set, now_iso(), json.dumps(run)))
        return run_id
