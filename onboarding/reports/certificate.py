"""The compliance certificate: a PDF (WeasyPrint) stating an entity's status and checks as of the
issue time, signed by its issuer (the organization), with a verification hash.

The hash is SHA-256 over the canonical JSON of the certificate's content (entity, status, flags,
risk, checks, issuer, issue time): anyone holding the same facts can recompute it, and a changed
certificate no longer matches. It is printed on the PDF and sent as the `X-Certificate-Hash` header.
"""

from __future__ import annotations

import hashlib
import json

from django.template.loader import render_to_string
from django.utils import timezone

from common.text import printable_data
from compliance.status import entity_compliant, flags_of

MAX_CHECKS = 50


def certificate_content(entity, *, issuer, issued_at=None) -> dict:
    issued_at = issued_at or timezone.now()
    checks = entity.checks.order_by("-created_at", "-id")[:MAX_CHECKS]
    return {
        "entity": {"id": str(entity.pk), "legal_name": entity.legal_name, "entity_type": entity.entity_type,
                   "jurisdiction": entity.jurisdiction, "external_id": entity.external_id,
                   "registration_number": entity.registration_number},
        "status": entity.status, "compliant": entity_compliant(entity), "flags": flags_of(entity),
        "risk": {"score": entity.risk_score, "tier": entity.risk_tier or None},
        "checks": [{"id": str(c.pk), "check_type": c.check_type, "result": c.result, "provider": c.provider,
                    "date": c.created_at.isoformat()} for c in checks],
        "issuer": {"id": str(issuer.pk), "name": issuer.name},
        "issued_at": issued_at.isoformat(),
    }


def verification_hash(content: dict) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def certificate_pdf(entity, *, issuer) -> tuple[bytes, str]:
    from weasyprint import HTML  # heavy import: only when a certificate is made

    content = certificate_content(entity, issuer=issuer)
    digest = verification_hash(content)
    # The hash is over the facts as stored; the page shows them with control, bidirectional and
    # invisible characters made visible (an U+202E in an older row would show the name reversed).
    html = render_to_string("onboarding/certificate.html", {"c": printable_data(content), "hash": digest})
    return HTML(string=html).write_pdf(), digest
