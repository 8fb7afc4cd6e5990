package dev.rmq.journal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Transactions that several journals run at once: the writers of several processes and a restore touch the same
 * message rows, so the database may roll one back as a deadlock victim or a serialization failure (SQLSTATE class
 * 40 on PostgreSQL and MySQL/MariaDB alike). Such a transaction wrote nothing and simply runs again.
 */
final class Transactions {

    /** How many times a transaction rolled back by a conflict runs again before its failure counts. */
    static final int RETRIES = 5;

    private Transactions() {
    }

    /** The work of one transaction. */
    interface Work {
        void run(Connection connection) throws SQLException;
    }

    /** Whether the failure is the database rolling the transaction back for a conflict with another. */
    static boolean isRolledBack(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException next = sql; next != null; next = next.getNextException()) {
                    if (next.getSQLState() != null && next.getSQLState().startsWith("40")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Runs {@code work} in a transaction on {@code connection}, again when a conflict rolled it back. */
    static void run(Connection connection, Work work) throws SQLException {
        connection.setAutoCommit(false);
        for (int attempt = 0; ; attempt++) {
            try {
                work.run(connection);
                connection.commit();
                return;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                if (!isRolledBack(e) || attempt >= RETRIES) {
                    throw e;
                }
            }
        }
    }
}
