package dev.rmq.journal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The SQL that differs between PostgreSQL and MySQL/MariaDB: how a batch of old rows is deleted (MySQL takes a
 * LIMIT in a DELETE, PostgreSQL needs a subquery), how statistics are refreshed, and where the migrations lie.
 */
enum Dialect {
    POSTGRESQL("postgresql") {
        @Override
        String pruneFinished(int limit) {
            return "DELETE FROM rmq_messages WHERE id IN (SELECT id FROM rmq_messages WHERE finished = TRUE AND"
                    + " updated_at < ? LIMIT " + limit + ")";
        }

        @Override
        String pruneExpired(int limit) {
            return "DELETE FROM rmq_messages WHERE id IN (SELECT id FROM rmq_messages WHERE NOT finished AND"
                    + " expire_at IS NOT NULL AND expire_at < ? LIMIT " + limit + ")";
        }

        /**
         * After five runs of a prepared statement PostgreSQL may switch to a plan made without its parameters;
         * for the writer's lookup of many keys that plan scans the table, and each batch gets slower as the table
         * grows. The writer's transactions plan every statement with its parameters.
         */
        @Override
        void beginWrite(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET LOCAL plan_cache_mode = force_custom_plan");
            }
        }

        @Override
        String analyzeMessages() {
            return "ANALYZE rmq_messages";
        }
    },
    MYSQL("mysql") {
        @Override
        String pruneFinished(int limit) {
            return "DELETE FROM rmq_messages WHERE finished = TRUE AND updated_at < ? LIMIT " + limit;
        }

        @Override
        String pruneExpired(int limit) {
            return "DELETE FROM rmq_messages WHERE finished = FALSE AND expire_at < ? LIMIT " + limit;
        }

        @Override
        String analyzeMessages() {
            return "ANALYZE TABLE rmq_messages";
        }
    };

    private final String folder;

    Dialect(String folder) {
        this.folder = folder;
    }

    /** A DELETE of up to {@code limit} finished messages last changed before its one parameter. */
    abstract String pruneFinished(int limit);

    /**
     * A DELETE of up to {@code limit} open messages whose time to live ran out before its one parameter, in epoch
     * milliseconds.
     */
    abstract String pruneExpired(int limit);

    /** Refreshes the planner's statistics of the messages table. */
    abstract String analyzeMessages();

    /** Prepares a transaction of the writer, begun on {@code connection}; nothing by default. */
    void beginWrite(Connection connection) throws SQLException {
    }

    /** Where Flyway finds this database's migrations. */
    String migrations() {
        return "classpath:dev/rmq/journal/jdbc/migration/" + folder;
    }

    static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return POSTGRESQL;
        }
        if (product.contains("mysql") || product.contains("mariadb")) {
            return MYSQL;
        }
        throw new IllegalArgumentException("the journal supports PostgreSQL and MySQL/MariaDB; the DataSource leads to "
                + connection.getMetaData().getDatabaseProductName());
    }
}
