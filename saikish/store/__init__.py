"""What saikish keeps on disk: allowlist, audit ledger, trust store, and safe file I/O."""
