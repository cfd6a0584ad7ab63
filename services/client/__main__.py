"""`python -m services.client`: the croupier command line."""

from services.client.cli import main

main()
