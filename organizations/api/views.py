from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.response import Response

from common.api.pagination import paginator
from common.api.serializers import validated, validated_query
from common.api.views import V1APIView, V1ViewSet
from common.errors import NotFound
from organizations import selectors, services
from organizations.api import serializers as s
from organizations.choices import Role


class SessionView(V1APIView):
    credentials = ("session",)


def _org_response(principal, org) -> dict:
    return s.OrganizationResponse(org, context={"role": principal.role}).data


class OrganizationsView(SessionView):
    needs_organization = False

    @extend_schema(operation_id="organizations_create", request=s.OrganizationCreateRequest,
                   responses={201: s.OrganizationResponse}, tags=["organizations"])
    def post(self, request):
        org = services.organization_create(actor=request.user, **validated(s.OrganizationCreateRequest, request.data))
        return Response(s.OrganizationResponse(org, context={"role": Role.ADMIN}).data, status=status.HTTP_201_CREATED)


class OrganizationMeView(SessionView):
    action_roles = {"patch": Role.ADMIN}

    @extend_schema(operation_id="organizations_me", responses={200: s.OrganizationResponse}, tags=["organizations"])
    def get(self, request):
        return Response(_org_response(request.auth, request.auth.organization))

    @extend_schema(operation_id="organizations_me_update", request=s.OrganizationUpdateRequest,
                   responses={200: s.OrganizationResponse}, tags=["organizations"])
    def patch(self, request):
        changes = validated(s.OrganizationUpdateRequest, request.data)
        return Response(_org_response(request.auth, services.organization_update(principal=request.auth, changes=changes)))


class InvitationsView(SessionView):
    action_roles = {"get": Role.ADMIN, "post": Role.ADMIN}

    @extend_schema(operation_id="invitations_list", responses={200: s.InvitationResponse(many=True)}, tags=["organizations"])
    def get(self, request):
        return Response(s.InvitationResponse(selectors.invitations_of(request.auth.organization), many=True).data)

    @extend_schema(operation_id="invitations_create", request=s.InviteRequest,
                   responses={201: s.InvitationCreatedResponse}, tags=["organizations"])
    def post(self, request):
        invitation = services.invitation_create(principal=request.auth, **validated(s.InviteRequest, request.data))
        invitation.token = selectors.invitation_token(invitation)
        invitation.accept_url = f"{settings.PUBLIC_URL}/accounts/invitation/?token={invitation.token}"
        return Response(s.InvitationCreatedResponse(invitation).data, status=status.HTTP_201_CREATED)


class InvitationPreviewView(V1APIView):
    public = True
    authentication_classes = ()
    permission_classes = ()

    @extend_schema(operation_id="invitations_preview", parameters=[OpenApiParameter("token", str, required=True)],
                   responses={200: s.InvitationPreviewResponse}, tags=["organizations"], auth=[])
    def get(self, request):
        token = validated_query(s.TokenQuery, request)["token"]
        invitation = selectors.invitation_by_token(token)
        if invitation is None:
            raise NotFound("No invitation matches this token.")
        return Response(s.InvitationPreviewResponse(invitation).data)


class InvitationAcceptView(SessionView):
    needs_organization = False

    @extend_schema(operation_id="invitations_accept", request=None, responses={200: s.MemberResponse}, tags=["organizations"])
    def post(self, request, invitation_id):
        membership = services.invitation_accept(user=request.user, invitation_id=invitation_id)
        return Response(s.MemberResponse(membership).data)


class InvitationRevokeView(SessionView):
    minimum_role = Role.ADMIN

    @extend_schema(operation_id="invitations_revoke", request=None, responses={200: s.InvitationResponse}, tags=["organizations"])
    def post(self, request, invitation_id):
        return Response(s.InvitationResponse(services.invitation_revoke(principal=request.auth, invitation_id=invitation_id)).data)


class MembersView(SessionView):
    @extend_schema(operation_id="members_list", responses={200: s.MemberResponse(many=True)}, tags=["organizations"])
    def get(self, request):
        return Response(s.MemberResponse(selectors.members_of(request.auth.organization), many=True).data)


class MemberView(SessionView):
    minimum_role = Role.ADMIN

    @extend_schema(operation_id="members_remove", responses={204: None}, tags=["organizations"])
    def delete(self, request, user_id):
        services.member_remove(principal=request.auth, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberRoleView(SessionView):
    minimum_role = Role.ADMIN

    @extend_schema(operation_id="members_change_role", request=s.UpdateRoleRequest, responses={200: s.MemberResponse},
                   tags=["organizations"])
    def patch(self, request, user_id):
        role = validated(s.UpdateRoleRequest, request.data)["role"]
        return Response(s.MemberResponse(services.member_role_change(principal=request.auth, user_id=user_id, role=role)).data)


class ApiKeyViewSet(mixins.ListModelMixin, V1ViewSet):
    """API keys of the caller's organization, both modes. Creating one needs a user session:
    a key cannot mint keys."""

    minimum_role = Role.ADMIN
    serializer_class = s.ApiKeyResponse
    pagination_class = paginator(20, 100)

    def base_queryset(self):
        return selectors.api_keys_of(self.principal.organization)

    def get_permissions(self):
        if self.action == "create":
            self.credentials = ("session",)
        return super().get_permissions()

    @extend_schema(operation_id="api_keys_create", request=s.ApiKeyCreateRequest, responses={201: s.ApiKeyCreatedResponse},
                   tags=["developer"])
    def create(self, request):
        issued = services.api_key_create(principal=request.auth, **validated(s.ApiKeyCreateRequest, request.data))
        issued.api_key.key = issued.secret
        return Response(s.ApiKeyCreatedResponse(issued.api_key).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="api_keys_revoke", request=None, responses={200: s.ApiKeyResponse}, tags=["developer"])
    def destroy(self, request, pk=None):
        return Response(s.ApiKeyResponse(services.api_key_revoke(principal=request.auth, api_key_id=pk)).data)

    @extend_schema(operation_id="api_keys_list", tags=["developer"])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)


class WhoAmIView(V1APIView):
    """Which organization, mode, role (and tier) this credential acts as: lets an integrator check
    a key before going live. The body is built by hand (WhoAmIResponse documents it): the
    serializer's field copies cost as much as the key check and limiter together."""

    @extend_schema(operation_id="developer_whoami", responses={200: s.WhoAmIResponse}, tags=["developer"])
    def get(self, request):
        principal, key, user = request.auth, request.auth.api_key, request.auth.user
        return Response({
            "credential": principal.credential, "organization_id": str(principal.organization.id),
            "organization_slug": principal.organization.slug, "mode": principal.mode, "role": principal.role,
            "tier": key.tier if key else None, "api_key_id": str(key.id) if key else None,
            "user_email": user.email if user else None,
        })
