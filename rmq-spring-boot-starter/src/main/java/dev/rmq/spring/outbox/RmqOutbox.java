package dev.rmq.spring.outbox;

import dev.rmq.outbox.jdbc.JdbcOutbox;
import dev.rmq.outbox.jdbc.OutboxStats;
import dev.rmq.producer.OutgoingMessage;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Sends that survive a crash between the commit and the send: written to the outbox table on the connection of the
 * current Spring transaction, so that they commit or roll back with the application's own writes, and moved to
 * Redis by the relay. Outside a transaction a send is written on its own; inside one that the outbox's DataSource takes
 * no part in, it is refused.
 */
public final class RmqOutbox {

    private final JdbcOutbox outbox;
    private final DataSource dataSource;

    public RmqOutbox(JdbcOutbox outbox, DataSource dataSource) {
        this.outbox = outbox;
        this.dataSource = dataSource;
    }

    /**
     * Writes {@code message} to the outbox in the current transaction.
     *
     * @throws IllegalArgumentException when the message does not fit the client's topics
     * @throws OutboxWriteException     when the database refused the row: the transaction fails with it
     */
    public void send(OutgoingMessage message) {
        sendAll(List.of(message));
    }

    /**
     * Writes each of {@code messages} as {@link #send} does, in one batch of inserts.
     *
     * @throws IllegalStateException inside a transaction that the outbox's DataSource takes no part in (another
     *                               transaction manager's): the rows would commit at once, whatever became of it
     */
    public void sendAll(List<OutgoingMessage> messages) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            // inside another manager's transaction, the connection is bound to it but in auto-commit
            if (TransactionSynchronizationManager.isActualTransactionActive() && connection.getAutoCommit()) {
                throw new IllegalStateException("the transaction around this send is not on the outbox's DataSource"
                        + " (another transaction manager's?): its rows would commit at once, even if the transaction"
                        + " rolled back. Send inside a transaction of the DataSource the outbox writes to");
            }
            outbox.sendAll(connection, messages);
        } catch (SQLException e) {
            throw new OutboxWriteException("the outbox could not write " + messages.size() + " send(s): " + e, e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** What the outbox holds and what its relay did. */
    public OutboxStats stats() {
        return outbox.stats();
    }

    /** The outbox's database failed a write; the transaction it was part of fails with it. */
    public static final class OutboxWriteException extends RuntimeException {

        OutboxWriteException(String message, SQLException cause) {
            super(message, cause);
        }
    }
}
