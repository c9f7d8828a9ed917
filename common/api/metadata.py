"""OPTIONS answers: DRF's SimpleMetadata, without the writable fields of views that declare no serializer.

Most actions validate their body with a request serializer of their own (`validated(...)`), so a view
has no `serializer_class` for SimpleMetadata to describe; it then stopped OPTIONS with a 500. Such a
view's OPTIONS lists its name, description, renders and parses; /v1/docs describes every body.
"""

from rest_framework.metadata import SimpleMetadata


class Metadata(SimpleMetadata):
    def determine_actions(self, request, view):
        from rest_framework.generics import GenericAPIView  # not at import: DRF's settings load this module from views.py

        declares_no_serializer = (
            getattr(view, "serializer_class", None) is None
            and type(view).get_serializer_class is GenericAPIView.get_serializer_class
        )
        return {} if declares_no_serializer else super().determine_actions(request, view)
