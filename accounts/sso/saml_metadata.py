"""Reading an identity provider's SAML metadata as an admin pastes it."""

from lxml import etree

MD = "urn:oasis:names:tc:SAML:2.0:metadata"
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, remove_comments=True)


def idp_entity_id(xml: str) -> str:
    """The entityID of the metadata's identity provider; ValueError saying what is wrong."""
    try:
        root = etree.fromstring(xml.encode(), parser=PARSER)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"The metadata is not well-formed XML ({exc.msg}).") from None
    descriptors = [root] if root.tag == f"{{{MD}}}EntityDescriptor" else root.findall(f"{{{MD}}}EntityDescriptor")
    idps = [d for d in descriptors if d.find(f"{{{MD}}}IDPSSODescriptor") is not None]
    if len(idps) != 1:
        raise ValueError("The metadata must describe one identity provider (an EntityDescriptor with an IDPSSODescriptor).")
    entity_id = idps[0].get("entityID", "")
    if not entity_id:
        raise ValueError("The identity provider's EntityDescriptor has no entityID.")
    if idps[0].find(f"{{{MD}}}IDPSSODescriptor/{{{MD}}}SingleSignOnService") is None:
        raise ValueError("The identity provider names no SingleSignOnService.")
    return entity_id
