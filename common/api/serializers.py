from rest_framework import serializers
from rest_framework.settings import api_settings

from common.text import single_line_problem


class StrictSerializer(serializers.Serializer):
    # Refuses fields it does not declare (a 422 naming them), as Stripe does: a typo in a field name
    # is an error the caller sees, not a value silently ignored. Refuses a JSON number where a field
    # takes text (DESIGN: a field of the wrong type is a 422): DRF's CharField would store
    # `"notes": 5` as "5" and `1e3` as "1000.0". A text field that takes numbers on purpose says so
    # with `accepts_numbers = True` (amounts: `"amount": 1500`).
    # Every text field is single-line unless it says otherwise (`single_line = False`:
    # common.api.fields.MultiLineTextField, PasswordField): control characters, bidirectional
    # controls, the BOM and zero-width characters are a 422 naming the field (common.text).
    # A comment, not a docstring: drf-spectacular describes each request body by the nearest
    # docstring of its serializer's classes, and this one is for the code's readers, not the API's.

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            for text in (field, getattr(field, "child", None)):
                if _single_line(text):
                    text.validators.append(single_line_text)
        return fields

    def to_internal_value(self, data):
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        errors = {name: ["This field is not accepted here."] for name in unknown}
        errors.update(_numbers_for_text(self.fields, data))
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            # Reported with the declared fields' own errors, so that one answer lists every mistake
            # (a misspelt field and the required one it was meant to be).
            if not errors or not isinstance(exc.detail, dict):
                raise
            raise serializers.ValidationError({**errors, **exc.detail}) from None
        if errors:
            raise serializers.ValidationError(errors)
        return value


NUMBER_FOR_TEXT = "Give text here (a JSON string), not a number."


def _single_line(field) -> bool:
    return isinstance(field, serializers.CharField) and not field.read_only and getattr(field, "single_line", True)


def single_line_text(value) -> None:
    """The validator of single-line text fields (every CharField of a StrictSerializer but those marked
    `single_line = False`)."""
    problem = single_line_problem(value) if isinstance(value, str) else None
    if problem:
        raise serializers.ValidationError(problem, code="not_single_line")


def _takes_text_only(field) -> bool:
    return isinstance(field, serializers.CharField) and not field.read_only and not getattr(field, "accepts_numbers", False)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _numbers_for_text(fields, data) -> dict:
    """{field: [message]} for a number given to a text field, {field: {index: [message]}} for a
    number among a list of texts (reported as `field.index`)."""
    if not isinstance(data, dict):
        return {}
    errors: dict = {}
    for name, field in fields.items():
        value = data.get(name)
        if _takes_text_only(field) and _is_number(value):
            errors[name] = [NUMBER_FOR_TEXT]
        elif isinstance(field, serializers.ListField) and _takes_text_only(field.child) and isinstance(value, list):
            found = {index: [NUMBER_FOR_TEXT] for index, item in enumerate(value) if _is_number(item)}
            if found:
                errors[name] = found
    return errors


def query_values(request) -> dict:
    """The query string as a dict, blank values left out: `?status=&limit=` is no filter and the
    default page, as a form with empty fields sends it, not a 422 for an empty status. A parameter
    given twice is refused (`?status=rejected&status=` would keep whichever came last)."""
    params = request.query_params
    repeated = sorted(name for name in params if len(params.getlist(name)) > 1)
    if repeated:
        raise serializers.ValidationError({name: ["Given more than once; give it once."] for name in repeated})
    return {name: value for name, value in params.dict().items() if value.strip()}


def validated(serializer_class, data, **kwargs) -> dict:
    """Run an input serializer and return its validated data (a 422 on failure)."""
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


PAGE_PARAMETERS = ("limit", "offset")


def refuse_unknown_parameters(request, taken) -> None:
    """A 422 for each query parameter the operation does not take (blank or not), naming those it
    takes, as for an unknown body field: a misspelt filter (`?statuss=rejected`) would otherwise
    answer the whole list as if it were the filtered one. DRF's format override (`?format=json`)
    is always taken. Marks the request checked, so that the paginator does not check again."""
    taken = [*taken]
    unknown = sorted(set(request.query_params) - {*taken, api_settings.URL_FORMAT_OVERRIDE})
    if unknown:
        message = (f"This parameter is not taken here; the parameters are {', '.join(taken)}." if taken
                   else "This operation takes no query parameters.")
        raise serializers.ValidationError({name: [message] for name in unknown})
    request.query_checked = True


def validated_query(serializer_class, request, *, also: tuple[str, ...] = ()) -> dict:
    """The query string checked by its serializer (a 422 on failure), blank values left out, and no
    parameter but the serializer's and `also` (those read elsewhere: PAGE_PARAMETERS for a paged list)."""
    given = query_values(request)
    serializer = serializer_class(data=given)
    refuse_unknown_parameters(request, [*serializer.fields, *also])
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
