package dev.rmq.outbox.jdbc;

import dev.rmq.testsupport.db.MariaDbTestServer;
import org.junit.jupiter.api.Assumptions;
import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.DataSource;
import java.sql.SQLException;

/** The outbox on a MariaDB server of its own. */
class MariaDbOutboxTests extends OutboxBehaviour {

    private MariaDbTestServer mariadb;

    @Override
    DataSource startDatabase() {
        Assumptions.assumeTrue(MariaDbTestServer.available(), MariaDbTestServer.missing());
        mariadb = MariaDbTestServer.start();
        try {
            return new MariaDbDataSource(mariadb.jdbcUrl());
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    String jdbcUrl() {
        return mariadb.jdbcUrl();
    }

    @Override
    void stopDatabase() {
        if (mariadb != null) {
            mariadb.close();
        }
    }
}
