from django.urls import path

from accounts.api import sso_views as views

urlpatterns = [
    path("check", views.CheckView.as_view()),
    path("saml/metadata", views.SAMLMetadataView.as_view()),
    path("saml/login", views.SAMLLoginView.as_view()),
    path("saml/acs", views.SAMLACSView.as_view()),
    path("oidc/login", views.OIDCLoginView.as_view()),
    path("oidc/callback", views.OIDCCallbackView.as_view()),
    path("connections", views.ConnectionsView.as_view()),
    path("connections/<uuid:connection_id>", views.ConnectionView.as_view()),
    path("connections/<uuid:connection_id>/verify-domain", views.VerifyDomainView.as_view()),
]
