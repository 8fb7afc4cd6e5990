package dev.rmq.outbox.jdbc;

import dev.rmq.testsupport.db.PostgresTestServer;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

/** The outbox on a PostgreSQL server of its own. */
class PostgresOutboxTests extends OutboxBehaviour {

    private PostgresTestServer postgres;

    @Override
    DataSource startDatabase() {
        postgres = PostgresTestServer.start();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        return dataSource;
    }

    @Override
    String jdbcUrl() {
        return postgres.jdbcUrl();
    }

    @Override
    void stopDatabase() {
        if (postgres != null) {
            postgres.close();
        }
    }
}
