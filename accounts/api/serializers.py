from rest_framework import serializers

from accounts.models import User
from common.api.fields import ChoiceField, PasswordField
from common.api.serializers import StrictSerializer


class RegisterRequest(StrictSerializer):
    email = serializers.EmailField(max_length=254)
    password = PasswordField(max_length=128, trim_whitespace=False)
    first_name = serializers.CharField(max_length=150, required=False, default="", allow_blank=True)
    last_name = serializers.CharField(max_length=150, required=False, default="", allow_blank=True)


class LoginRequest(StrictSerializer):
    email = serializers.EmailField(max_length=254)
    password = PasswordField(max_length=128, trim_whitespace=False)


class ForgotPasswordRequest(StrictSerializer):
    email = serializers.EmailField(max_length=254)


class ResetPasswordRequest(StrictSerializer):
    token = serializers.CharField(max_length=500)
    password = PasswordField(max_length=128, trim_whitespace=False)


class VerifyEmailQuery(StrictSerializer):
    token = serializers.CharField(max_length=500)


class ProfileUpdateRequest(StrictSerializer):
    """The fields a person may change about themselves; e-mail, roles and flags are not among them."""

    first_name = serializers.CharField(max_length=150, required=False, allow_blank=True)
    last_name = serializers.CharField(max_length=150, required=False, allow_blank=True)
    job_title = serializers.CharField(max_length=100, required=False, allow_blank=True)


class UserResponse(serializers.ModelSerializer):
    email_verified = serializers.BooleanField(read_only=True)
    created_at = serializers.DateTimeField(source="date_joined", read_only=True)

    class Meta:
        model = User
        fields = ["id", "email", "first_name", "last_name", "job_title", "email_verified", "created_at", "last_login"]
        read_only_fields = fields


class AuthResponse(serializers.Serializer):
    user = UserResponse()
    session_token = serializers.CharField()
    expires_at = serializers.DateTimeField()


class MembershipSummary(serializers.Serializer):
    organization_id = serializers.UUIDField(source="organization.id")
    organization_name = serializers.CharField(source="organization.name")
    organization_slug = serializers.CharField(source="organization.slug")
    role = serializers.CharField()


class MeResponse(serializers.Serializer):
    user = UserResponse()
    organization = MembershipSummary(allow_null=True, help_text="The organization this request acts for.")
    mode = ChoiceField(choices=["test", "live"])
    memberships = MembershipSummary(many=True)


class MessageResponse(serializers.Serializer):
    message = serializers.CharField()
