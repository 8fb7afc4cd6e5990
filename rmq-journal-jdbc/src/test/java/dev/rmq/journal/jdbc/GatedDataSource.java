package dev.rmq.journal.jdbc;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.logging.Logger;

/**
 * A DataSource whose connections can be refused, call by call, as a database that went away refuses them (SQLSTATE
 * 08001): a plan of passes and refusals, taken in order, and after it every call passes, or every call is refused
 * while it is {@link #closed}.
 */
final class GatedDataSource implements DataSource {

    private final DataSource target;
    private final Deque<Boolean> plan = new ArrayDeque<>();
    private boolean closed;

    GatedDataSource(DataSource target) {
        this.target = target;
    }

    /** Refuses every connection until the next {@link #then}. */
    synchronized void close() {
        closed = true;
        plan.clear();
    }

    /** From now on: {@code pass} connections through, then {@code refuse} refused, then all through. */
    synchronized void then(int pass, int refuse) {
        closed = false;
        plan.clear();
        for (int i = 0; i < pass; i++) {
            plan.add(true);
        }
        for (int i = 0; i < refuse; i++) {
            plan.add(false);
        }
    }

    private synchronized void admit() throws SQLException {
        Boolean next = closed ? Boolean.FALSE : plan.poll();
        if (next != null && !next) {
            throw new SQLException("connection refused (a database that went away, as the test plans it)", "08001");
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        admit();
        return target.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        admit();
        return target.getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return target.isWrapperFor(type);
    }
}
