"""The travel rule (docs/travel-rule.md): transfers initiated through the API, the travel-rule process (same
organization, or an inquiry to another VASP), expiry, and completion on chain (the chain-confirmation callback, or
the chain indexer seeing the transfer: chain.py)."""
