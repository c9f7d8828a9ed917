from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from accounts import services
from accounts.api import serializers as s
from common.api.serializers import validated, validated_query
from common.api.views import V1APIView
from organizations import selectors as org_selectors


class PublicAuthView(V1APIView):
    """Operations that need no credential."""

    public = True
    authentication_classes = ()
    permission_classes = ()


class SessionOnlyView(V1APIView):
    credentials = ("session",)
    needs_organization = False


def _message(text: str) -> Response:
    return Response({"message": text})


class RegisterView(PublicAuthView):
    @extend_schema(operation_id="auth_register", request=s.RegisterRequest, responses={201: s.UserResponse}, tags=["auth"])
    def post(self, request):
        user = services.user_register(**validated(s.RegisterRequest, request.data))
        return Response(s.UserResponse(user).data, status=status.HTTP_201_CREATED)


class VerifyEmailView(PublicAuthView):
    @extend_schema(
        operation_id="auth_verify_email", request=None, responses={200: s.UserResponse}, tags=["auth"],
        parameters=[OpenApiParameter("token", str, required=True)],
    )
    def post(self, request):
        query = validated_query(s.VerifyEmailQuery, request)
        return Response(s.UserResponse(services.email_verify(token=query["token"])).data)


class ResendVerificationView(PublicAuthView):
    @extend_schema(operation_id="auth_resend_verification", request=s.LoginRequest, responses={200: s.MessageResponse}, tags=["auth"])
    def post(self, request):
        services.verification_resend(**validated(s.LoginRequest, request.data))
        return _message("A new verification link is on its way.")


class ForgotPasswordView(PublicAuthView):
    @extend_schema(operation_id="auth_forgot_password", request=s.ForgotPasswordRequest, responses={200: s.MessageResponse}, tags=["auth"])
    def post(self, request):
        services.password_reset_request(**validated(s.ForgotPasswordRequest, request.data))
        return _message("If an account uses this address, a reset link is on its way.")


class ResetPasswordView(PublicAuthView):
    @extend_schema(operation_id="auth_reset_password", request=s.ResetPasswordRequest, responses={200: s.MessageResponse}, tags=["auth"])
    def post(self, request):
        services.password_reset(**validated(s.ResetPasswordRequest, request.data))
        return _message("Your password has been changed and every session signed out. Sign in again.")


class LoginView(PublicAuthView):
    @extend_schema(operation_id="auth_login", request=s.LoginRequest, responses={200: s.AuthResponse}, tags=["auth"])
    def post(self, request):
        issued = services.session_login(**validated(s.LoginRequest, request.data), request=request._request)
        return Response(s.AuthResponse({"user": issued.user, "session_token": issued.token, "expires_at": issued.expires_at}).data)


class LogoutView(SessionOnlyView):
    @extend_schema(operation_id="auth_logout", request=None, responses={200: s.MessageResponse}, tags=["auth"])
    def post(self, request):
        services.session_logout(user=request.user, session_token=request.auth.session_token, request=request._request)
        return _message("Signed out.")


class MeView(SessionOnlyView):
    @extend_schema(operation_id="auth_me", responses={200: s.MeResponse}, tags=["auth"])
    def get(self, request):
        principal = request.auth
        memberships = org_selectors.memberships_of(request.user)
        current = next((m for m in memberships if principal.organization and m.organization_id == principal.organization.pk), None)
        return Response(s.MeResponse({
            "user": request.user, "organization": current, "mode": principal.mode, "memberships": memberships,
        }).data)

    @extend_schema(operation_id="auth_me_update", request=s.ProfileUpdateRequest, responses={200: s.UserResponse}, tags=["auth"])
    def patch(self, request):
        changes = validated(s.ProfileUpdateRequest, request.data)
        return Response(s.UserResponse(services.profile_update(user=request.user, changes=changes)).data)
