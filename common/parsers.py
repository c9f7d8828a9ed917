from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JSONObjectParser(JSONParser):
    """JSON bodies must be objects (DESIGN §4: anything else is 400 BAD_REQUEST)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except ParseError:
            raise ParseError("The request body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise ParseError("The request body must be a JSON object.")
        return data
