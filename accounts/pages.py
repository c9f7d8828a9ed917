from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from accounts import services
from common.errors import ServiceError
from organizations import selectors as org_selectors


def _outcome(request, template, action, **context):
    try:
        action()
        context["done"] = True
    except ServiceError as exc:
        context["error"] = exc.message
    return render(request, template, context)


@require_http_methods(["GET", "POST"])
def verify_email(request):
    token = request.GET.get("token", "")
    if request.method == "POST":
        return _outcome(request, "accounts/verify_email.html", lambda: services.email_verify(token=token), token=token)
    return render(request, "accounts/verify_email.html", {"token": token})


@require_http_methods(["GET", "POST"])
def reset_password(request):
    token = request.GET.get("token", "")
    if request.method == "POST":
        password = request.POST.get("password", "")
        return _outcome(request, "accounts/reset_password.html",
                        lambda: services.password_reset(token=token, password=password), token=token)
    return render(request, "accounts/reset_password.html", {"token": token})


@require_http_methods(["GET"])
def invitation(request):
    invite = org_selectors.invitation_by_token(request.GET.get("token", ""))
    return render(request, "accounts/invitation.html", {"invitation": invite})
