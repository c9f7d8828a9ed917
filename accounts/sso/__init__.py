"""Organization single sign-on (docs/sso.md): connections and their domains, DNS verification,
the OIDC and SAML sign-in flows, and just-in-time provisioning of members."""
