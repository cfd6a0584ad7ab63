"""The poker engine's records, each declared once: tools/gen_records.py (`make records`)
writes the native classes of services/games/poker/<name>.py from schema/<name>.py. Never
imported at run time; the generated modules are the engine."""
