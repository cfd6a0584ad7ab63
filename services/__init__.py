"""croupier services: one package per deployable plus the pure game core and shared plumbing."""
