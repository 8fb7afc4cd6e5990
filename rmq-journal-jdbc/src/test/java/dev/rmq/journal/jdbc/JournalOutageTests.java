package dev.rmq.journal.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.testsupport.db.PostgresTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The journal while its database is out of reach: a proxy in front of PostgreSQL refuses and resets connections,
 * then lets them through again.
 */
class JournalOutageTests extends JournalTestBase {

    private PostgresTestServer postgres;
    private TcpProxy proxy;

    @Override
    DataSource startDatabase() {
        postgres = PostgresTestServer.start();
        proxy = TcpProxy.to("127.0.0.1", postgres.port());
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl("jdbc:postgresql://" + proxy.hostAndPort() + "/postgres?user=postgres&connectTimeout=2");
        return dataSource;
    }

    @Override
    void stopDatabase() {
        try {
            if (proxy != null) {
                proxy.close();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    @AfterEach
    void healProxy() {
        proxy.heal();
    }

    private void cutDatabase() {
        proxy.refuse();
        proxy.resetAll();
    }

    @Test
    void continuingSendsDropRowsTheBufferHasNoRoomForAndCountThem() throws SQLException {
        open(journal -> journal.whenUnavailable(WhenUnavailable.CONTINUE).bufferCapacity(4).batchSize(1));
        cutDatabase();
        for (int i = 0; i < 30; i++) {
            client.producer().send(OutgoingMessage.priority(PRIORITY, "m" + i, 100).withKey("m" + i));
        }
        JournalStats during = journal.stats();
        assertThat(during.gap()).isPositive();
        assertThat(during.buffered()).isLessThanOrEqualTo(4);
        await().atMost(Duration.ofSeconds(5)).until(() -> journal.stats().lag().toMillis() > 100);
        assertThat(journal.stats().failures()).isPositive();

        proxy.heal();
        journal.flush(Duration.ofSeconds(20));
        long gap = journal.stats().gap();
        assertThat(messages(PRIORITY)).hasSize((int) (30 - gap));
        assertThat(journal.stats().lag()).isZero();
    }

    @Test
    void blockingSendsWaitForRoomThenFailWhileRedisKeepsTheMessage() throws SQLException {
        open(journal -> journal.whenUnavailable(WhenUnavailable.BLOCK).bufferCapacity(2).batchSize(1)
                .blockTimeout(Duration.ofMillis(300)));
        cutDatabase();
        int sent = 0;
        Throwable failure = null;
        for (int i = 0; i < 20 && failure == null; i++) {
            try {
                client.producer().send(OutgoingMessage.priority(PRIORITY, "m" + i, 100).withKey("m" + i));
                sent++;
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        assertThat(failure).isInstanceOf(JournalUnavailableException.class)
                .hasMessageContaining("Redis holds the message");
        // the buffer, the row in the writer's hand, and the overflow hold what was taken before the failure
        assertThat(sent).isBetween(2, 6);
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "m" + sent))).isPresent();

        proxy.heal();
        journal.flush(Duration.ofSeconds(20));
        assertThat(messages(PRIORITY)).hasSizeGreaterThanOrEqualTo(sent);
    }

    @Test
    void aRowTheDatabaseRefusesIsDroppedAloneAndTheJournalGoesOn() throws SQLException {
        open(journal -> journal.mode(JournalMode.SYNC));
        // PostgreSQL cannot store a NUL in text: that row fails for good, and must not hold up the rest
        assertThatThrownBy(() -> client.producer().send(OutgoingMessage.priority(PRIORITY, "x", 100)
                .withKey("bad\u0000key"))).isInstanceOf(JournalUnavailableException.class)
                .hasMessageContaining("refuses this row");
        client.producer().send(OutgoingMessage.priority(PRIORITY, "y", 100).withKey("good"));
        assertThat(messages(PRIORITY)).extracting(MessageRow::key).containsExactly("good");
        assertThat(journal.stats().gap()).isEqualTo(1);
    }

    @Test
    void aStatementTheDatabaseCannotRunIsAnOutageThatTheRowsWaitOut() throws SQLException {
        open(journal -> { });
        // an upgrade whose migration did not run: the writer's statements name a column the table lacks (42703)
        execute("ALTER TABLE rmq_messages RENAME COLUMN send_id TO send_id_not_migrated");
        try {
            for (int i = 0; i < 3; i++) {
                client.producer().send(OutgoingMessage.priority(PRIORITY, "m" + i, 100).withKey("m" + i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> journal.stats().failures() > 0);
        } finally {
            execute("ALTER TABLE rmq_messages RENAME COLUMN send_id_not_migrated TO send_id");
        }
        journal.flush(Duration.ofSeconds(20));

        assertThat(messages(PRIORITY)).extracting(MessageRow::key).containsExactlyInAnyOrder("m0", "m1", "m2");
        assertThat(journal.stats().gap()).as("each row refused and dropped, before").isZero();
    }

    @Test
    void rowsWrittenApartFromARefusedOneWaitOutAnOutageThatBeginsMeanwhile() throws SQLException {
        GatedDataSource gate = new GatedDataSource(dataSource);
        journal = closeAfter(JdbcJournal.builder(gate).host("test-host").build());
        client = closeAfter(RmqClient.builder(redisson).topics(topics()).journal(journal).build());
        gate.close();
        // the writer holds this row and tries it again and again; the next ones wait in its buffer meanwhile
        client.producer().send(OutgoingMessage.priority(PRIORITY, "x", 100).withKey("first"));
        await().atMost(Duration.ofSeconds(10)).until(() -> journal.stats().failures() > 0);
        client.producer().sendAll(List.of(OutgoingMessage.priority(PRIORITY, "x", 100).withKey("before"),
                OutgoingMessage.priority(PRIORITY, "x", 100).withKey("bad\u0000key"),
                OutgoingMessage.priority(PRIORITY, "x", 100).withKey("after")));

        // the held row, then the batch of three, which PostgreSQL refuses for the NUL; then the database goes away
        // as the rows are written apart, for three connections
        gate.then(2, 3);
        journal.flush(Duration.ofSeconds(30));

        assertThat(messages(PRIORITY)).extracting(MessageRow::key).containsExactlyInAnyOrder("first", "before", "after");
        assertThat(journal.stats().gap()).as("the refused row alone").isEqualTo(1);
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @Test
    void aSynchronousSendFailsWhenItsRowCannotCommitAndTheRowIsWrittenLater() throws SQLException {
        open(journal -> journal.mode(JournalMode.SYNC).syncTimeout(Duration.ofMillis(500))
                .blockTimeout(Duration.ofMillis(300)));
        cutDatabase();
        assertThatThrownBy(() -> client.producer().send(OutgoingMessage.priority(PRIORITY, "s", 100).withKey("s")))
                .isInstanceOf(JournalUnavailableException.class).hasMessageContaining("not committed within 800 ms");
        proxy.heal();
        journal.flush(Duration.ofSeconds(20));
        assertThat(message(PRIORITY, "s").state()).isEqualTo("sent");
    }
}
