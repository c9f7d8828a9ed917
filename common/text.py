"""Characters that have no place in single-line text: refused when it comes in (the API's text
fields, common.api.serializers.StrictSerializer) and made visible when older rows go out (the CSV
report, the PDF certificate).

- control characters (C0, DEL, C1): BEL and ESC ring terminals and drive them when a CSV is shown,
  CR/LF split one value over lines;
- bidirectional controls (U+202A-U+202E, U+2066-U+2069, LRM/RLM/ALM): "U+202E" shows the rest of
  a name reversed, so that the screen and the stored value disagree;
- the byte-order mark and zero-width characters (U+200B-U+200D, U+2060-U+2064, U+FEFF): a name that
  looks like another one but matches no list entry or search;
- the line and paragraph separators U+2028/U+2029.
"""

import re

_CONTROLS = "\x00-\x1f\x7f-\x9f"
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_INVISIBLE = "\u200b-\u200d\u2060-\u2064\ufeff"
_SEPARATORS = "\u2028\u2029"
# Not NUL: DRF's CharField refuses it already ("Null characters are not allowed.").
NOT_SINGLE_LINE = re.compile(f"[\x01-\x1f\x7f-\x9f{_BIDI}{_INVISIBLE}{_SEPARATORS}]")
# What an output neutralises: the same, except the tab and line breaks that multi-line text (notes) holds.
NOT_PRINTABLE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}{_INVISIBLE}{_SEPARATORS}]")


def _kind(char: str) -> str:
    if re.fullmatch(f"[{_CONTROLS}]", char):
        return "a control character"
    if re.fullmatch(f"[{_BIDI}]", char):
        return "a bidirectional control"
    if re.fullmatch(f"[{_SEPARATORS}]", char):
        return "a line separator"
    return "an invisible character"


def single_line_problem(text: str) -> str | None:
    """Why `text` is not single-line text (naming the first offending character), or None."""
    found = NOT_SINGLE_LINE.search(text)
    if found is None:
        return None
    char = found.group()
    return f"Contains {_kind(char)} (U+{ord(char):04X}) at position {found.start() + 1}; single-line text takes visible characters only."


def printable(text: str) -> str:
    """`text` with each character of NOT_PRINTABLE shown as [U+XXXX]: nothing an output writes can
    ring, move or reverse anything, and a reader still sees that something was there."""
    return NOT_PRINTABLE.sub(lambda found: f"[U+{ord(found.group()):04X}]", text)


def printable_data(value):
    """printable() applied to every string in nested dicts and lists."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {key: printable_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(item) for item in value]
    return value
