import pycountry
from rest_framework import serializers


class CountryField(serializers.CharField):
    """ISO 3166-1 alpha-2 country code, upper-cased."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 2)
        kwargs.setdefault("min_length", 2)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data).upper()
        if pycountry.countries.get(alpha_2=value) is None:
            raise serializers.ValidationError(f"{value!r} is not an ISO 3166-1 alpha-2 country code.")
        return value


class ChoiceField(serializers.ChoiceField):
    """DRF's ChoiceField whose refusal lists the values it takes ('"x" is not one of: a, b, c.')."""

    def to_internal_value(self, data):
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError:
            shown = data if isinstance(data, str | int) and not isinstance(data, bool) else type(data).__name__
            raise serializers.ValidationError(f'"{shown}" is not one of: {", ".join(map(str, self.choices))}.',
                                              code="invalid_choice") from None


class OptionalChoiceField(ChoiceField):
    """A choice stored as '' until it is made (a model CharField with blank=True), answered as null:
    the schema's enum then holds for every value a client sees."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value):
        return super().to_representation(value) if value else None
