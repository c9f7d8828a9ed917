import re
from datetime import UTC, date, datetime, time

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


EARLIEST_BIRTH_DATE = date(1900, 1, 1)


class BirthDateField(serializers.DateField):
    """A person's date of birth: not after today (UTC) and not before 1900-01-01. A date the matcher
    would weigh as evidence (docs/screening.md) must at least be possible; 9999-12-31 is a typo."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", f"YYYY-MM-DD, from {EARLIEST_BIRTH_DATE.isoformat()} to today")
        super().__init__(**kwargs)

    def to_internal_value(self, value):
        born = super().to_internal_value(value)
        today = datetime.now(UTC).date()
        if born > today:
            raise serializers.ValidationError(f"A date of birth cannot be in the future (after {today.isoformat()}).")
        if born < EARLIEST_BIRTH_DATE:
            raise serializers.ValidationError(f"A date of birth before {EARLIEST_BIRTH_DATE.isoformat()} is not plausible.")
        return born


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


BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
PERIOD_FORMATS = "a date (2026-11-01) or an ISO 8601 date-time (2026-11-01T10:00:00Z; UTC without an offset)"


class PeriodBoundField(serializers.DateTimeField):
    """One end of a period filter: a date-time, or a bare date meaning the whole day: its start for
    `from_date`, its end for `to_date` (end_of_day), so that ?to_date=2026-11-01 includes that day."""

    def __init__(self, *, end_of_day: bool = False, **kwargs):
        self.end_of_day = end_of_day
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, value):
        if isinstance(value, str) and BARE_DATE.fullmatch(value.strip()):
            try:
                day = date.fromisoformat(value.strip())
            except ValueError:
                raise serializers.ValidationError(f"{value!r} is not a day of the calendar; give {PERIOD_FORMATS}.") from None
            return datetime.combine(day, time.max if self.end_of_day else time.min, tzinfo=UTC)  # 9999-12-31 too
        try:
            return super().to_internal_value(value)
        except serializers.ValidationError:
            raise serializers.ValidationError(f"Give {PERIOD_FORMATS}.") from None


class PeriodQuery(serializers.Serializer):
    """from_date and to_date of a list (both ends included); to_date before from_date is a 422."""

    from_date = PeriodBoundField()
    to_date = PeriodBoundField(end_of_day=True)

    def validate(self, attrs):
        if attrs.get("from_date") and attrs.get("to_date") and attrs["from_date"] > attrs["to_date"]:
            raise serializers.ValidationError({"to_date": "to_date is before from_date."})
        return attrs


class StrictBooleanField(serializers.BooleanField):
    """A JSON body's true or false only (DESIGN: a field of the wrong type is a 422): DRF's
    BooleanField also takes "yes", "off", 1 or "0", so a typo such as "flase" for a switch that
    stops monitoring or silences a rule would pass or fail by its spelling. Query parameters, which
    are text, keep BooleanField."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class MultiLineTextField(serializers.CharField):
    """Text that may run over several lines (notes, reasons, comments, documents): line breaks and tabs
    are taken. Every other text field of a request is single-line (common.text, StrictSerializer)."""

    single_line = False


class PasswordField(serializers.CharField):
    """A password: checked against its hash only, never shown, so any character is taken (refusing one
    now would lock out whoever chose it)."""

    single_line = False
