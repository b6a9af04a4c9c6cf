"""An exchange's tool traffic, read back: what the agent's tools were asked and answered.

Ingest keeps every tool call and tool result inside its exchange (:mod:`..segment`); these
modules read that traffic, one concept each:

- :mod:`.uses`: tool calls paired with their results as tool uses (what each call asked for and
  got);
- :mod:`.shell`: which files a shell command or a patch reads or writes;
- :mod:`.checks`: which build/test/lint check a command ran, and how it ended;
- :mod:`.toolcalls`: the exchange's tool traffic as one compact block (files modified and read,
  commands, final check outcomes); also the text of the ``toolcalls`` search layer.

They use only the basics (the model, files, tokens, the store's memo), never a later step.
"""
