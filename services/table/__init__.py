"""Table orchestrator: event-sourced game tables driven by the pure rules in services.games."""
