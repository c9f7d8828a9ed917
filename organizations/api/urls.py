from django.urls import path

from organizations.api import views

urlpatterns = [
    path("me", views.OrganizationMeView.as_view()),
    path("invitations", views.InvitationsView.as_view()),
    path("invitations/preview", views.InvitationPreviewView.as_view()),
    path("invitations/<uuid:invitation_id>/accept", views.InvitationAcceptView.as_view()),
    path("invitations/<uuid:invitation_id>/revoke", views.InvitationRevokeView.as_view()),
    path("members", views.MembersView.as_view()),
    path("members/<uuid:user_id>", views.MemberView.as_view()),
    path("members/<uuid:user_id>/role", views.MemberRoleView.as_view()),
]
