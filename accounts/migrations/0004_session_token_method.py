"""How each session token's person signed in, so that a session opened without SSO ends once their
domain enforces it (accounts.selectors.sso_required_since). Tokens issued before this migration
take the method their sign-in's audit entry recorded (`user.logged_in`, `after.method`; a password
sign-in records none)."""

from django.db import migrations, models


def methods_from_the_audit_log(apps, schema_editor):
    SessionToken = apps.get_model("accounts", "SessionToken")
    AuditLogEntry = apps.get_model("common", "AuditLogEntry")
    live = {str(pk) for pk in SessionToken.objects.filter(revoked_at__isnull=True).values_list("pk", flat=True)}
    by_method: dict[str, list[str]] = {}
    for object_id, after in (AuditLogEntry.objects.filter(action="user.logged_in", object_type="session", object_id__in=live)
                             .exclude(after=None).values_list("object_id", "after")):
        method = (after or {}).get("method")
        if method:
            by_method.setdefault(method, []).append(object_id)
    for method, ids in by_method.items():
        SessionToken.objects.filter(pk__in=ids).update(method=method[:20])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_sso_login_attempt_google"),
        ("common", "0002_audit_append_only"),
    ]

    operations = [
        migrations.AddField(
            model_name="sessiontoken",
            name="method",
            field=models.CharField(default="password", help_text="How the person proved who they are: password, google, sso_oidc or sso_saml.",
                                   max_length=20),
        ),
        migrations.RunPython(methods_from_the_audit_log, migrations.RunPython.noop),
    ]
