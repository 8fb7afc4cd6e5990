package dev.rmq.outbox.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A connection of the relay's in a READ COMMITTED transaction: a claim reads what other transactions committed
 * last, and takes no gap locks that two relays could deadlock on. Closing it gives the connection back to its pool
 * as it came: its isolation and auto-commit restored, whatever pool it is.
 */
final class RelayTransaction implements AutoCloseable {

    private final Connection connection;
    private final int isolation;
    private final boolean autoCommit;

    private RelayTransaction(Connection connection) throws SQLException {
        this.connection = connection;
        this.isolation = connection.getTransactionIsolation();
        this.autoCommit = connection.getAutoCommit();
    }

    static RelayTransaction begin(DataSource dataSource) throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            RelayTransaction transaction = new RelayTransaction(connection);
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return transaction;
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    Connection connection() {
        return connection;
    }

    /** Rolls back what this transaction did not commit; a connection already gone takes it with it. */
    void rollbackQuietly() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is gone: its transaction with it
        }
    }

    /** Closes it; a connection already gone is given back as it is. */
    void closeQuietly() {
        try {
            close();
        } catch (SQLException ignored) {
            // the pool has the connection back, or never will: nothing of this transaction is left to do
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            connection.setTransactionIsolation(isolation);
            connection.setAutoCommit(autoCommit);
        } finally {
            connection.close();
        }
    }
}
