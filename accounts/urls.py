"""The pages e-mailed links open: they confirm with a button (a POST), so a mail scanner that
follows links cannot verify an address or spend a reset token by itself."""

from django.urls import path

from accounts import pages

urlpatterns = [
    path("verify-email/", pages.verify_email, name="page-verify-email"),
    path("reset-password/", pages.reset_password, name="page-reset-password"),
    path("invitation/", pages.invitation, name="page-invitation"),
]
