import codecs
import json

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding

MAX_NESTING = 64  # objects and arrays inside one another; no payload of the API comes near


def nested_deeper_than(value, limit: int = MAX_NESTING) -> bool:
    """Whether objects and arrays nest more than `limit` levels (the outermost is level 1), walked
    without recursion so that the check itself cannot overflow."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


class DuplicateKey(ValueError):
    """A JSON object names the same key twice: which value was meant is not knowable (RFC 8259 §4
    leaves it to the reader; Python would keep the last silently), so the whole text is refused."""

    def __init__(self, key: str):
        self.key = key
        super().__init__(key)


def _object_without_duplicates(pairs: list[tuple[str, object]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return data


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def strict_loads(text: str):
    """json.loads as every JSON the service reads is read: an object naming a key twice raises
    DuplicateKey, and NaN/Infinity (not JSON) a ValueError."""
    return json.loads(text, object_pairs_hook=_object_without_duplicates, parse_constant=_refuse_constant)


def _duplicate_message(what: str, exc: DuplicateKey) -> str:
    return f"{what} has the key {json.dumps(exc.key)} twice in one object; send each key once."


def loads_object(text: str | bytes, what: str = "The request body"):
    """JSON text that must be an object, nested at most MAX_NESTING levels, each object's keys
    once: the object, or a ValueError whose message says what is wrong with it (deep nesting would
    otherwise overflow the decoder, or whatever walks the payload later, into a 500)."""
    try:
        data = strict_loads(text.decode("utf-8") if isinstance(text, bytes) else text)  # bytes would also be read as UTF-16/32
    except RecursionError:
        raise ValueError(f"{what} nests objects or arrays more than {MAX_NESTING} levels deep.") from None
    except DuplicateKey as exc:
        raise ValueError(_duplicate_message(what, exc)) from None
    except ValueError:  # UnicodeDecodeError is a ValueError too
        raise ValueError(f"{what} is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object.")
    if nested_deeper_than(data):
        raise ValueError(f"{what} nests objects or arrays more than {MAX_NESTING} levels deep.")
    return data


class JSONObjectParser(JSONParser):
    """JSON bodies must be objects (docs/architecture.md §4: anything else is 400 BAD_REQUEST), nested at most
    MAX_NESTING levels, each object's keys once (loads_object)."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = get_encoding(parser_context or {})
        try:
            text = codecs.getreader(encoding)(stream).read()
        except ValueError:  # UnicodeDecodeError: not text in its charset, so not JSON either
            raise ParseError("The request body is not valid JSON.") from None
        try:
            return loads_object(text)
        except ValueError as exc:
            raise ParseError(str(exc)) from None
