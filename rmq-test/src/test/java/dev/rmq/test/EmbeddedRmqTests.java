package dev.rmq.test;

import dev.rmq.dead.DeadMessage;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.spring.annotation.RmqListener;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A test as a user writes it: {@code @EmbeddedRmq} brings Redis and ZooKeeper, the application's own listeners run,
 * and {@link RmqTester} waits for what they do. The application's configuration names a Redis and a ZooKeeper that
 * do not exist; the embedded ones win.
 */
@SpringBootTest(classes = EmbeddedRmqTests.App.class, properties = {
        "rmq.redis.address=redis://127.0.0.1:1",
        "rmq.zookeeper.connect-string=127.0.0.1:1",
        "rmq.listener.idle-poll=50ms",
        "rmq.topics.invoices.type=PRIORITY",
        "rmq.topics.invoices.slot-amount=2",
        "rmq.topics.invoices.max-retries=1",
        "rmq.topics.invoices.backoff.initial=50ms",
        "rmq.topics.reminders.type=FIXED_TIME",
        "rmq.topics.reminders.slot-amount=2"})
@EmbeddedRmq(zookeeper = true)
class EmbeddedRmqTests {

    @Autowired
    RmqTester rmq;
    @Autowired
    Invoices invoices;
    @Autowired
    CuratorFramework curator;

    @Test
    void sendAndAwaitReturnsOnceTheListenerHasAcknowledged() {
        RmqTester.Outcome outcome = rmq.sendAndAwait(
                OutgoingMessage.priority("invoices", "paid", 100).withKey("inv-1"));

        assertThat(outcome.consumed()).isTrue();
        assertThat(outcome.receipt().key()).isEqualTo("inv-1");
        assertThat(invoices.handled).contains("paid");
    }

    @Test
    void aMessageThatKeepsFailingEndsDeadAndIsReadBack() {
        rmq.purgeDead("invoices");
        RmqTester.Outcome outcome = rmq.sendAndAwait(
                OutgoingMessage.priority("invoices", "poison", 100).withKey("inv-2"));

        assertThat(outcome.consumed()).isFalse();
        assertThat(outcome.dead()).get().satisfies(dead -> assertThat(dead.lastError()).contains("cannot bill poison"));
        assertThat(rmq.deadMessages("invoices")).extracting(DeadMessage::key).containsExactly("inv-2");
        assertThat(rmq.purgeDead("invoices")).isEqualTo(1);
        assertThat(rmq.deadMessages("invoices")).isEmpty();
    }

    @Test
    void awaitDrainedWaitsForEverySlot() {
        for (int i = 0; i < 20; i++) {
            rmq.sendAndAwait(OutgoingMessage.priority("invoices", "bulk-" + i, 100).withKey("bulk-" + i),
                    Duration.ofSeconds(10));
        }
        rmq.awaitDrained("invoices");
        assertThat(invoices.handled).filteredOn(payload -> payload.startsWith("bulk-")).hasSize(20);
    }

    @Test
    void aWaitThatTimesOutSaysWhereTheMessageIs() {
        assertThatThrownBy(() -> rmq.sendAndAwait(OutgoingMessage.fixedTime("reminders", "later",
                java.time.Instant.now().plusSeconds(3600)).withKey("r-1"), Duration.ofMillis(300)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("reminders/r-1 was neither consumed nor dead within PT0.3S: it is WAITING");
        assertThatThrownBy(() -> rmq.awaitDrained("reminders", Duration.ofMillis(200)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("topic 'reminders' was not drained within PT0.2S: 0 due now, 1 due later");
    }

    @Test
    void badArgumentsFailClearly() {
        assertThatThrownBy(() -> rmq.awaitDrained("nowhere")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nowhere");
        assertThatThrownBy(() -> rmq.awaitDrained("invoices", Duration.ZERO))
                .hasMessage("timeout must be positive, was PT0S");
    }

    @Test
    void theEmbeddedZooKeeperIsTheOneInUse() {
        assertThat(curator.getZookeeperClient().getCurrentConnectionString()).startsWith("127.0.0.1:")
                .isNotEqualTo("127.0.0.1:1");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        Invoices invoices() {
            return new Invoices();
        }
    }

    static class Invoices {

        final List<String> handled = new CopyOnWriteArrayList<>();

        @RmqListener(topic = "invoices")
        void bill(String invoice) {
            if (invoice.equals("poison")) {
                throw new IllegalStateException("cannot bill " + invoice);
            }
            handled.add(invoice);
        }
    }
}
