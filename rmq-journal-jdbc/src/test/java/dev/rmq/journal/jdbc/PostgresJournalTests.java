package dev.rmq.journal.jdbc;

import javax.sql.DataSource;

/** The journal on a PostgreSQL server of its own. */
class PostgresJournalTests extends JournalBehaviour {

    private final PostgresDatabase postgres = new PostgresDatabase();

    @Override
    DataSource startDatabase() {
        return postgres.start();
    }

    @Override
    void stopDatabase() {
        postgres.stop();
    }
}
