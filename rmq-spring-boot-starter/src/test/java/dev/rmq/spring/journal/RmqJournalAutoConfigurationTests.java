package dev.rmq.spring.journal;

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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

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

    private static PostgresTestServer postgres;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry properties) {
        RedisAndZooKeeper.connect(properties);
        if (postgres == null) {
            postgres = PostgresTestServer.start();
        }
        properties.add("spring.datasource.url", postgres::jdbcUrl);
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @SpringBootApplication
    static class App {
    }

    @Autowired
    RmqProducer producer;
    @Autowired
    JdbcJournal journal;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    MeterRegistry meters;

    @Test
    void sendsAreJournaledAsConfiguredAndRestoredIntoTheApplicationsRedis() {
        assertThat(journal.mode("journaled")).isEqualTo(JournalMode.SYNC);
        assertThat(journal.mode("unjournaled")).isEqualTo(JournalMode.OFF);
        producer.send(OutgoingMessage.priority("journaled", "kept", 100).withKey("kept"));
        producer.send(OutgoingMessage.priority("unjournaled", "lost", 100).withKey("lost"));
        // synchronous: the row is there as the send returns
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM rmq_messages WHERE topic = 'journaled'", Long.class))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM rmq_messages WHERE topic = 'unjournaled'", Long.class))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT host FROM rmq_transitions LIMIT 1", String.class))
                .isEqualTo("starter-test");

        RedisAndZooKeeper.redis().command("FLUSHALL");
        RestoreReport report = journal.restore(RestoreRequest.all());
        assertThat(report.restored()).isEqualTo(1);
        assertThat(producer.get(MessageRef.of("journaled", "kept"))).isPresent();
        assertThat(producer.get(MessageRef.of("unjournaled", "lost"))).isEmpty();
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
