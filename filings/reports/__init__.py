"""Report drafting and filing on top of the document layer (filings.documents, filings.renderers):
prefilled drafts from cases and alerts, drafts saved with their preparer, filing records."""
