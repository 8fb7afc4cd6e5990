package dev.rmq.journal.jdbc;

/** The journal on a PostgreSQL server of its own (the base class starts it). */
class PostgresJournalTests extends JournalBehaviour {
}
