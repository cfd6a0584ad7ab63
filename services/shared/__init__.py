"""Plumbing shared by every deployable: settings, errors, identity, gRPC bootstrap, event store."""
