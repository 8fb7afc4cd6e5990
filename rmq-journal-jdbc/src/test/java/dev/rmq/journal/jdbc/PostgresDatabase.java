package dev.rmq.journal.jdbc;

import dev.rmq.testsupport.db.PostgresTestServer;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

/** A PostgreSQL server of a test class's own, and a DataSource on it. */
final class PostgresDatabase {

    private PostgresTestServer server;

    DataSource start() {
        server = PostgresTestServer.start();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(server.jdbcUrl());
        return dataSource;
    }

    void stop() {
        if (server != null) {
            server.close();
        }
    }
}
