"""Text rules every step shares: what a word is, which words say nothing, which characters are
broken.

Each rule has one home here, so the index, the distillers, the evaluation and the store read
text the same way where they mean to, and differ only where a named variant says why
(:mod:`palace_lab.text.words`, :mod:`palace_lab.text.broken`). Nothing here imports the rest of
palace_lab: every step may use it.
"""
