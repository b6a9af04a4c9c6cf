"""Noise: terms nobody types into a search box, and text that is pasted rather than written.

Two rules, one home:

- :func:`is_noise`, for a single term (a keyword): a bare number or number fragment
  (``579.88``, ``349.88c``, ``362.607l``) unless it has a unit (``30s``, ``512mb``, ``95%``)
  or is a date, a year or a dotted version of three parts (``2024-05-01``, ``2023``,
  ``1.2.3``); a hex run of seven or more characters with a digit; a CSS value (``0.15em``,
  ``12px``); an HTTP header name (``sec-fetch-dest``, ``content-type``); a minified or encoded
  fragment (a run of single-letter names joined by dots, ``e.t.n``, or over 40 characters
  without a path separator).
- :func:`is_blob_line`, for a line of a message: machine text pasted into the conversation
  (a HAR or JSON dump, a log line, base64, minified code). Blob lines count as tool output for
  the card: they neither feed the keywords as the person's words nor grow the card's budget.
"""

from __future__ import annotations

import re

from palace_lab.distill.clauses import LABEL

_UNITS = ("ms|us|µs|ns|s|sec|secs|m|min|mins|h|hr|hrs|d|days|w|k|kb|mb|gb|tb|kib|mib|gib|tib|"
          "b|x|%|rps|qps|fps|hz|khz|mhz|ghz|v|ma|kw|mm|cm|km|g|kg|mg|ml|gbps|mbps")
_WITH_UNIT = re.compile(rf"\d+(?:\.\d+)?(?:{_UNITS})", re.I)
_DATE = re.compile(r"(?:19|20)\d\d(?:-\d\d(?:-\d\d)?)?|\d{1,2}/\d{1,2}/\d{2,4}")
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[.-]\w+)*")
_NUMBERISH = re.compile(r"[-+]?[\d.,:/_]*\d[\d.,:/_]*[a-z]{0,2}", re.I)
_CSS = re.compile(r"-?\d*\.?\d+(?:px|em|rem|vh|vw|vmin|vmax|pt|pc|ch|ex|deg|fr|dpi|dppx)", re.I)
_HEX = re.compile(r"(?:0x)?[0-9a-f]{7,}", re.I)
_MINIFIED = re.compile(r"(?:\b[a-z]\.){2,}[a-z]\b", re.I)
_HEADERS = frozenset(
    """
    accept accept-encoding accept-language accept-ranges access-control-allow-origin
    access-control-allow-headers access-control-allow-methods access-control-allow-credentials
    access-control-expose-headers access-control-max-age access-control-request-method
    access-control-request-headers cache-control content-disposition content-encoding
    content-language content-length content-security-policy content-type cross-origin-opener-policy
    cross-origin-resource-policy cross-origin-embedder-policy etag expires if-match
    if-modified-since if-none-match keep-alive last-modified permissions-policy pragma priority
    referer referrer-policy sec-ch-ua sec-ch-ua-mobile sec-ch-ua-platform sec-fetch-dest
    sec-fetch-mode sec-fetch-site sec-fetch-user sec-gpc set-cookie strict-transport-security
    transfer-encoding upgrade-insecure-requests user-agent x-content-type-options
    x-frame-options x-xss-protection x-forwarded-for x-forwarded-proto x-requested-with
    x-powered-by alt-svc server-timing timing-allow-origin
    """.split())


def is_noise(term: str) -> bool:
    """``term`` is noise by the module docstring's rule."""
    t = term.strip().lower()
    if not t:
        return True
    if t in _HEADERS or t.startswith(("sec-fetch-", "sec-ch-", "access-control-", "x-amz-")):
        return True
    if _CSS.fullmatch(t):
        return True
    if t[0].isdigit() or t[0] in "+-.":
        if _DATE.fullmatch(t) or _VERSION.fullmatch(t) or _WITH_UNIT.fullmatch(t):
            return False
        return bool(_NUMBERISH.fullmatch(t)) or bool(_HEX.fullmatch(t))
    if _HEX.fullmatch(t) and any(c.isdigit() for c in t):
        return True
    return bool(_MINIFIED.search(t)) or (len(t) > 40 and "/" not in t)


# Pasted code or a terminal's frame: a box-drawing border, a comment, an import or export line.
_CODE = re.compile(r"^\s*(?:[\u2500-\u257f]|//|/\*|#include\b|"
                   r"(?:import|export)\s+(?:\*|\{|default\b|type\b|\w+\s+from\s+[\"']))")
_BASE64 = re.compile(r"[A-Za-z0-9+/=_\-]{60,}")
_JSONISH = re.compile(r'^\s*(?:[\[{]\s*(?:["{\[\d]|$)|"[^"]{1,80}"\s*:)|[{\[],?\s*$|^\s*[}\]],?\s*$')
_LOG = re.compile(r"^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\d\d:\d\d:\d\d[.,]\d+|"
                  r"(?:DEBUG|INFO|WARN|WARNING|TRACE)\b)")


def is_blob_line(line: str) -> bool:
    """``line`` is pasted machine text (module docstring), not a sentence someone wrote."""
    s = LABEL.sub("", line.strip())  # the verbatim rendering's "[user] "
    if len(s) < 20:
        return False
    if _BASE64.search(s) or _JSONISH.search(s) or _LOG.match(s) or _CODE.match(s):
        return True
    words = s.split()
    if len(s) > 200 and len(words) < len(s) / 25:
        return True  # long runs without spaces: minified code, URLs with payloads
    letters = sum(c.isalpha() for c in s)
    return letters < len(s) * 0.4


def without_blobs(text: str) -> tuple[str, str]:
    """``(written, pasted)``: ``text``'s lines split by :func:`is_blob_line`."""
    written, pasted = [], []
    for line in text.splitlines():
        (pasted if is_blob_line(line) else written).append(line)
    return "\n".join(written), "\n".join(pasted)
