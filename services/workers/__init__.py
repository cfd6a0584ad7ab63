"""Celery workers: action timeouts and bot moves (thin shells over table-service RPCs)."""
