package dev.rmq.spring.journal;

import dev.rmq.RmqClient;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.journal.jdbc.RestoreReport;
import dev.rmq.journal.jdbc.RestoreRequest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.RedisAndZooKeeper;
import dev.rmq.testsupport.db.PostgresTestServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rmq.journal.*} on a real PostgreSQL, Redis and ZooKeeper. */
@ExtendWith(RedisAndZooKeeper.class)
@SpringBootTest(classes = RmqJournalAutoConfigurationTests.App.class, properties = {
        "rmq.topics.journaled.type=PRIORITY",
        "rmq.topics.journaled.slot-amount=2",
        "rmq.topics.unjournaled.type=PRIORITY",
        "rmq.journal.enabled=true",
        "rmq.journal.mode=sync",
        "rmq.journal.topics.unjournaled=off",
        "rmq.journal.host=starter-test"})
@DirtiesContext
class RmqJournalAutoConfigurationTests {

    private static final PostgresTestServer postgres = PostgresTestServer.start();

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry properties) {
        RedisAndZooKeeper.connect(properties);
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    /** The application's DataSource, as an application defines it: the journal takes whichever there is. */
    @SpringBootApplication
    static class App {

        @Bean
        DataSource dataSource() {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setUrl(postgres.jdbcUrl());
            return dataSource;
        }
    }

    @Autowired
    RmqProducer producer;
    @Autowired
    JdbcJournal journal;
    @Autowired
    RmqClient client;
    @Autowired
    DataSource dataSource;
    @Autowired
    MeterRegistry meters;

    @Test
    void sendsAreJournaledAsConfiguredAndRestoredIntoTheApplicationsRedis() throws SQLException {
        assertThat(journal.mode("journaled")).isEqualTo(JournalMode.SYNC);
        assertThat(journal.mode("unjournaled")).isEqualTo(JournalMode.OFF);
        producer.send(OutgoingMessage.priority("journaled", "kept", 100).withKey("kept"));
        producer.send(OutgoingMessage.priority("unjournaled", "lost", 100).withKey("lost"));
        // synchronous: the row is there as the send returns
        assertThat(query("SELECT COUNT(*) FROM rmq_messages WHERE topic = 'journaled'")).isEqualTo("1");
        assertThat(query("SELECT COUNT(*) FROM rmq_messages WHERE topic = 'unjournaled'")).isEqualTo("0");
        assertThat(query("SELECT host FROM rmq_transitions LIMIT 1")).isEqualTo("starter-test");

        RedisAndZooKeeper.redis().command("FLUSHALL");
        RestoreReport report = journal.restore(client, RestoreRequest.all());
        assertThat(report.restored()).isEqualTo(1);
        assertThat(producer.get(MessageRef.of("journaled", "kept"))).isPresent();
        assertThat(producer.get(MessageRef.of("unjournaled", "lost"))).isEmpty();
    }

    private String query(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }

    @Test
    void theJournalsBufferAndLagAreMeters() {
        assertThat(meters.get("rmq.journal.buffered").gauge().value()).isGreaterThanOrEqualTo(0);
        assertThat(meters.get("rmq.journal.lag").gauge()).isNotNull();
        assertThat(meters.get("rmq.journal.gap").functionCounter().count()).isZero();
    }

    @Test
    void aJournalWithoutADataSourceStopsTheStartWithWhatToDo() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqJournalAutoConfiguration.class))
                .withPropertyValues("rmq.journal.enabled=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("rmq.journal.enabled=true needs one DataSource")
                        .hasMessageContaining("set spring.datasource.url"));
    }
}
