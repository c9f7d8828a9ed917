import json

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

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


def loads_object(text: str | bytes, what: str = "The request body"):
    """JSON text that must be an object, nested at most MAX_NESTING levels: the object, or a
    ValueError whose message says what is wrong with it (deep nesting would otherwise overflow the
    decoder, or whatever walks the payload later, into a 500)."""
    try:
        data = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)  # bytes would also be read as UTF-16/32
    except RecursionError:
        raise ValueError(f"{what} nests objects or arrays more than {MAX_NESTING} levels deep.") from None
    except ValueError:  # UnicodeDecodeError is a ValueError too
        raise ValueError(f"{what} is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object.")
    if nested_deeper_than(data):
        raise ValueError(f"{what} nests objects or arrays more than {MAX_NESTING} levels deep.")
    return data


class JSONObjectParser(JSONParser):
    """JSON bodies must be objects (docs/architecture.md §4: anything else is 400 BAD_REQUEST), nested at most
    MAX_NESTING levels."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except ParseError:
            raise ParseError("The request body is not valid JSON.") from None
        except RecursionError:
            raise ParseError(f"The request body nests objects or arrays more than {MAX_NESTING} levels deep.") from None
        if not isinstance(data, dict):
            raise ParseError("The request body must be a JSON object.")
        if nested_deeper_than(data):
            raise ParseError(f"The request body nests objects or arrays more than {MAX_NESTING} levels deep.")
        return data
