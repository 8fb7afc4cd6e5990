package dev.rmq.spring.outbox;

import dev.rmq.RmqClient;
import dev.rmq.outbox.jdbc.JdbcOutbox;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.spring.ApplicationDatabase;
import dev.rmq.spring.RedisAndZooKeeper;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqCoordinationAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqZooKeeperAutoConfiguration;
import dev.rmq.spring.transaction.RmqTransactionAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** {@code rmq.outbox.*} on a real PostgreSQL, Redis and ZooKeeper. */
@ExtendWith({RedisAndZooKeeper.class, ApplicationDatabase.class})
class RmqOutboxAutoConfigurationTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    EndpointAutoConfiguration.class,
                    RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class,
                    RmqTransactionAutoConfiguration.class, RmqOutboxAutoConfiguration.class))
            .withUserConfiguration(ApplicationDatabase.Beans.class)
            .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(),
                    "rmq.topics.orders.type=PRIORITY", "rmq.topics.orders.slot-amount=2",
                    "rmq.topics.capped.type=PRIORITY", "rmq.topics.capped.slot-amount=1",
                    "rmq.topics.capped.max-backlog=1", "rmq.outbox.enabled=true", "rmq.outbox.poll-interval=20ms",
                    "management.endpoints.web.exposure.include=rmqoutbox");

    @BeforeEach
    void empty() {
        RedisAndZooKeeper.redis().command("FLUSHALL");
        JdbcTemplate jdbc = new JdbcTemplate(ApplicationDatabase.dataSource());
        jdbc.execute("CREATE TABLE IF NOT EXISTS outbox_orders (id VARCHAR(64))");
        if (Boolean.TRUE.equals(jdbc.queryForObject("SELECT to_regclass('rmq_outbox') IS NOT NULL", Boolean.class))) {
            jdbc.update("DELETE FROM rmq_outbox");
        }
    }

    private static OutgoingMessage order(String key) {
        return OutgoingMessage.priority("orders", "timeout of " + key, 50).withKey(key);
    }

    private static boolean queued(ConfigurableApplicationContext context, String key) {
        return context.getBean(RmqClient.class).producer().get(MessageRef.of("orders", key)).isPresent();
    }

    private static void inTransaction(ConfigurableApplicationContext context, boolean commit, String... keys) {
        TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
        RmqOutbox outbox = context.getBean(RmqOutbox.class);
        transaction.executeWithoutResult(status -> {
            for (String key : keys) {
                jdbc.update("INSERT INTO outbox_orders VALUES (?)", key);
                outbox.send(order(key));
            }
            if (!commit) {
                status.setRollbackOnly();
            }
        });
    }

    private static long rows(ConfigurableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("SELECT count(*) FROM rmq_outbox",
                Long.class);
    }

    @Test
    void aSendWrittenInACommittedTransactionArrivesOnceAndOneRolledBackNever() {
        contextRunner.run(context -> {
            inTransaction(context, false, "never");
            inTransaction(context, true, "o-1", "o-2");

            await().atMost(Duration.ofSeconds(20)).until(() -> queued(context, "o-1") && queued(context, "o-2"));
            await().atMost(Duration.ofSeconds(20)).until(() -> rows(context) == 0);
            assertThat(queued(context, "never")).isFalse();
            assertThat(context.getBean(RmqClient.class).inspector().counts("orders").total().waiting()).isEqualTo(2);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            // counted once the batch's deletion has committed
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> meters.get("rmq.outbox.relayed").functionCounter().count() == 2);
            assertThat(meters.get("rmq.outbox.lag").tag("topic", "orders").timer().count()).isEqualTo(2);
            assertThat(meters.get("rmq.outbox.size").gauge().value()).isNotNegative();
        });
    }

    @Test
    void aSendInATransactionOfAnotherDataSourceIsRefusedRatherThanCommittedOnItsOwn() {
        contextRunner.run(context -> {
            // another transaction manager's transaction: the outbox's DataSource takes no part in it
            TransactionTemplate other = new TransactionTemplate(
                    new DataSourceTransactionManager(ApplicationDatabase.dataSource()));
            RmqOutbox outbox = context.getBean(RmqOutbox.class);
            assertThatThrownBy(() -> other.executeWithoutResult(status -> {
                outbox.send(OutgoingMessage.priority("orders", "elsewhere", 50).withKey("elsewhere"));
                status.setRollbackOnly();
            })).isInstanceOf(IllegalStateException.class).hasMessageContaining("not on the outbox's DataSource");
            assertThat(rows(context)).isZero();
        });
    }

    @Test
    void badInputFailsAtOnceAndWritesNothing() {
        contextRunner.run(context -> {
            RmqOutbox outbox = context.getBean(RmqOutbox.class);
            assertThatThrownBy(() -> outbox.send(OutgoingMessage.priority("no-such-topic", "x", 50)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-topic");
            assertThat(rows(context)).isZero();
        });
    }

    @Test
    void aSendRedisRefusesStaysAndTheEndpointAndMetersReportIt() {
        contextRunner.run(context -> {
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            RmqOutbox outbox = context.getBean(RmqOutbox.class);
            transaction.executeWithoutResult(status -> outbox.sendAll(List.of(
                    OutgoingMessage.priority("capped", "first", 50).withKey("c-1"),
                    OutgoingMessage.priority("capped", "second", 50).withKey("c-2"))));

            RmqOutboxEndpoint endpoint = context.getBean(RmqOutboxEndpoint.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.outbox().refused().size() == 1);
            var refused = endpoint.outbox().refused().get(0);
            assertThat(refused.key()).isEqualTo("c-2");
            assertThat(refused.topic()).isEqualTo("capped");
            assertThat(refused.attempts()).isPositive();
            assertThat(refused.lastError()).contains("capped");
            assertThat(endpoint.outbox().relayingHere()).isTrue();
            assertThat(rows(context)).as("the refused send waits in the outbox").isEqualTo(1);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("rmq.outbox.refusals").tag("topic", "capped").counter().count()).isPositive();
        });
    }

    @Test
    void withoutTheRelayTheSendsWaitInTheTable() {
        contextRunner.withPropertyValues("rmq.outbox.relay=false").run(context -> {
            assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class);
            inTransaction(context, true, "waits");

            assertThat(rows(context)).isEqualTo(1);
            assertThat(context.getBean(JdbcOutbox.class).relaying()).isFalse();
            assertThat(queued(context, "waits")).isFalse();
        });
    }

    /** Under ZooKeeper one instance relays at a time; when it stops, another takes over. */
    @Test
    void underZooKeeperOneInstanceRelaysAndAnotherTakesOverWhenItStops() {
        ApplicationContextRunner zookeeper = contextRunner
                .withConfiguration(AutoConfigurations.of(RmqZooKeeperAutoConfiguration.class,
                        RmqCoordinationAutoConfiguration.class))
                .withPropertyValues("rmq.zookeeper.connect-string=" + RedisAndZooKeeper.zookeeper().getConnectString(),
                        "rmq.zookeeper.root=/rmq-outbox-test");
        zookeeper.run(first -> zookeeper.run(second -> {
            List<ConfigurableApplicationContext> instances = new ArrayList<>(List.of(first, second));
            await().atMost(Duration.ofSeconds(20)).until(() -> instances.stream()
                    .filter(instance -> instance.getBean(JdbcOutbox.class).relaying()).count() == 1);
            ConfigurableApplicationContext leader = instances.stream()
                    .filter(instance -> instance.getBean(JdbcOutbox.class).relaying()).findFirst().orElseThrow();
            ConfigurableApplicationContext other = leader == first ? second : first;

            inTransaction(other, true, "z-1", "z-2", "z-3");
            // counted once the batch's deletion has committed
            await().atMost(Duration.ofSeconds(20)).until(() -> leader.getBean(JdbcOutbox.class).stats().relayed() == 3);
            assertThat(rows(other)).isZero();
            assertThat(other.getBean(JdbcOutbox.class).stats().relayed()).as("the one that does not lead").isZero();

            leader.stop();
            await().atMost(Duration.ofSeconds(30)).until(() -> other.getBean(JdbcOutbox.class).relaying());
            inTransaction(other, true, "z-4");
            await().atMost(Duration.ofSeconds(20)).until(() -> other.getBean(JdbcOutbox.class).stats().relayed() == 1);
            assertThat(queued(other, "z-4")).isTrue();
        }));
    }
}
