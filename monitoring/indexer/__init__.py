"""The chain indexer (docs/indexer.md): transfers touching registered wallets on the enabled chains, read from a node
and handed to monitoring's ingestion service, behind a per-chain cursor that survives reorganisations."""
