from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not declare (a 422 naming them), as Stripe does: a typo in a field
    name is an error the caller sees, not a value silently ignored."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["This field is not accepted here."] for name in unknown})
        return super().to_internal_value(data)


def validated(serializer_class, data, **kwargs) -> dict:
    """Run an input serializer and return its validated data (a 422 on failure)."""
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
