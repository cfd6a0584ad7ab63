"""The triggers the table schedules and the workers fire, as both sides must agree on them.

A library, not a deployable: the task names and their payloads (`Deadline`, `BotTurn`, a
bot's seat), the broker settings both sides use, the deadline index the table arms and the
workers' sweeper reads, and `CeleryScheduler`, the table's scheduler port over Celery. The
table imports it to send; the workers import it to receive; neither imports the other.
"""
