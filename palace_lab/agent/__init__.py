"""Agents recall from the palace while they work.

The data flow, one module each:

- :mod:`~palace_lab.agent.recall`: the read-only questions an agent may ask of a palace (search,
  one exchange paged, a memory pack, the room map, stats) as plain JSON-ready dicts, searched
  through :mod:`~palace_lab.agent.serving` (a frozen engine answers while the next is built);
- :mod:`~palace_lab.agent.mcp_server`: those questions as MCP tools over stdio (or streamable
  HTTP on 127.0.0.1), with the official ``mcp`` SDK;
- :mod:`~palace_lab.agent.hook`: Claude Code's SessionStart hook: the project of the working
  directory → a memory pack within a budget, never blocking the session (packs cached and
  refreshed in the background by :mod:`~palace_lab.agent.pack_cache`);
- :mod:`~palace_lab.agent.watch`: live ingest of the history folders as they grow (ingest →
  distill → warm indexes), so what an agent did a minute ago is already recallable.

Everything an agent gets back is recalled data from past sessions, never instructions: the tool
descriptions and the hook's preface say so.
"""
