package dev.rmq.journal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Transactions that several journals run at once: the writers of several processes and a restore touch the same
 * message rows, so the database may roll one back as a deadlock victim or a serialization failure (SQLSTATE class
 * 40 on PostgreSQL and MySQL/MariaDB alike). Such a transaction wrote nothing and simply runs again.
 */
final class Transactions {

    /**
     * The calendar every timestamp is bound with: the columns hold UTC, whatever the time zone of the JVM that
     * writes them, so that journals on hosts in other zones, and retention's comparisons, agree.
     */
    static java.util.Calendar utc() {
        return java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC"));
    }

    /** How many times a transaction rolled back by a conflict runs again before its failure counts. */
    private static final int RETRIES = 5;

    private Transactions() {
    }

    /** The work of one transaction, and what it yields. */
    interface Work<T> {
        T run(Connection connection) throws SQLException;
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

    /**
     * Whether the database refuses a value for good: a data exception (SQLSTATE class 22, such as a string it
     * cannot store) or an integrity violation (23): the same row fails again, and the others do not. A statement
     * it cannot run (class 42: a column or table missing after an upgrade without its migration, a privilege
     * revoked) fails for every row alike, so it is an outage, which the rows wait out, and not a refusal of each.
     */
    static boolean isRefused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException next = sql; next != null; next = next.getNextException()) {
                    String state = next.getSQLState();
                    if (state != null && (state.startsWith("22") || state.startsWith("23"))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Runs {@code work} in a transaction on {@code connection}, again when a conflict rolled it back, and returns
     * what it yields. Any other failure rolls back and is thrown.
     */
    static <T> T run(Connection connection, Work<T> work) throws SQLException {
        connection.setAutoCommit(false);
        for (int attempt = 0; ; attempt++) {
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                if (!isRolledBack(e) || attempt >= RETRIES) {
                    throw e;
                }
                backOff(attempt);
            }
        }
    }

    /**
     * A random pause before a transaction runs again, longer after each conflict: two transactions that met in a
     * deadlock and ran again at once would meet again in the same order.
     */
    private static void backOff(int attempt) throws SQLException {
        try {
            Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(5, 20L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted before running a transaction again", e);
        }
    }
}
