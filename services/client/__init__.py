"""Client side: the `croupier` command line, the Python client SDK and the platform launcher."""
