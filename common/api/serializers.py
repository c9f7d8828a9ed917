from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not declare (a 422 naming them), as Stripe does: a typo in a field
    name is an error the caller sees, not a value silently ignored."""

    def to_internal_value(self, data):
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        errors = {name: ["This field is not accepted here."] for name in unknown}
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


def query_values(request) -> dict:
    """The query string as a dict (the last value of a repeated parameter), blank values left out:
    `?status=&limit=` is no filter and the default page, as a form with empty fields sends it, not
    a 422 for an empty status."""
    return {name: value for name, value in request.query_params.dict().items() if value.strip()}


def validated(serializer_class, data, **kwargs) -> dict:
    """Run an input serializer and return its validated data (a 422 on failure)."""
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


PAGE_PARAMETERS = ("limit", "offset")


def validated_query(serializer_class, request) -> dict:
    """The query string checked by its serializer (a 422 on failure), blank values left out. A
    parameter the operation does not take is refused, naming those it takes, as an unknown body
    field is: a misspelt filter (`?statuss=rejected`) would otherwise answer the whole list as if it
    were the filtered one. The page parameters are read by the paginator; a StrictSerializer (a
    query without paging) refuses them itself."""
    given = query_values(request)
    serializer = serializer_class(data=given)
    if not isinstance(serializer, StrictSerializer):
        taken = [*serializer.fields, *PAGE_PARAMETERS]
        unknown = sorted(set(given) - set(taken))
        if unknown:
            message = f"This parameter is not taken here; the parameters are {', '.join(taken)}."
            raise serializers.ValidationError({name: [message] for name in unknown})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
