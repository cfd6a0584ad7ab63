"""Evaluator service: hand ranking (high, low, wild cards), showdowns and equities."""
