package dev.rmq.journal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL that differs between PostgreSQL and MySQL/MariaDB: how a batch of old rows is deleted (MySQL takes a
 * LIMIT in a DELETE, PostgreSQL needs a subquery), and where the migrations lie.
 */
enum Dialect {
    POSTGRESQL("postgresql") {
        @Override
        String pruneFinished(int limit) {
            return "DELETE FROM rmq_messages WHERE id IN (SELECT id FROM rmq_messages WHERE finished = TRUE AND"
                    + " updated_at < ? LIMIT " + limit + ")";
        }
    },
    MYSQL("mysql") {
        @Override
        String pruneFinished(int limit) {
            return "DELETE FROM rmq_messages WHERE finished = TRUE AND updated_at < ? LIMIT " + limit;
        }
    };

    private final String folder;

    Dialect(String folder) {
        this.folder = folder;
    }

    /** A DELETE of up to {@code limit} finished messages last changed before its one parameter. */
    abstract String pruneFinished(int limit);

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
