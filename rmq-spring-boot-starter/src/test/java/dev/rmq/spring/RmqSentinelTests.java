package dev.rmq.spring;

import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import dev.rmq.testsupport.RedisSentinel;
import dev.rmq.embedded.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter on Redis Sentinel, with a failover in the middle of a run: SIGKILL of the master while messages
 * are sent and consumed, the replica promoted, the old master back as its replica. With durable sends (WAIT for
 * one replica) every acknowledged send is consumed; without them, what the master acknowledged but had not yet
 * replicated when it died is lost, and the test measures how much.
 */
class RmqSentinelTests {

    private static final Logger log = LoggerFactory.getLogger(RmqSentinelTests.class);

    private RedisSentinel sentinel;

    /** A deployment per test: each test fails its master over once, from a deployment that has not moved yet. */
    @BeforeEach
    void start() {
        sentinel = RedisSentinel.start();
    }

    @AfterEach
    void stop() {
        sentinel.close();
    }

    private ApplicationContextRunner app() {
        List<String> properties = new ArrayList<>(List.of(
                "rmq.redis.sentinel.master=" + RedisSentinel.MASTER_NAME,
                "rmq.redis.timeout=1s",
                "rmq.topics.orders.type=PRIORITY",
                "rmq.topics.orders.slot-amount=4",
                "rmq.topics.orders.lease-timeout=5s",
                "rmq.listener.idle-poll=200ms"));
        List<String> nodes = sentinel.sentinelNodes();
        for (int i = 0; i < nodes.size(); i++) {
            properties.add("rmq.redis.sentinel.nodes[" + i + "]=" + nodes.get(i));
        }
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new))
                .withBean(Recorder.class);
    }

    @Test
    void withDurableSendsEveryAcknowledgedMessageIsConsumedAcrossAFailover() {
        app().withPropertyValues("rmq.producer.durability.replicas=1", "rmq.producer.durability.timeout=1s")
                .run(context -> {
                    Run run = failoverDuring(context.getBean(RmqProducer.class), context.getBean(Recorder.class), "d");
                    log.info("Sentinel failover with durable sends: {}", run);
                    assertThat(run.lost()).as("acknowledged durable sends that were never consumed").isZero();
                    assertThat(run.acknowledgedAfter()).isPositive();
                });
    }

    @Test
    void withoutDurableSendsConsumptionGoesOnAndWhatTheFailoverLostIsMeasured() {
        app().run(context -> {
            Run run = failoverDuring(context.getBean(RmqProducer.class), context.getBean(Recorder.class), "n");
            log.info("Sentinel failover without durable sends: {}", run);
            // what the dead master had acknowledged but not replicated, and what a client wrote to the old master
            // in the moment it came back as a master, before the Sentinels made it a replica, may be lost
            assertThat(run.acknowledgedAfter()).isPositive();
            assertThat(run.lostAfter()).as("sends acknowledged once the failover was over, never consumed").isZero();
        });
    }

    /**
     * What a run sent and lost: in all, and of what was sent once the failover was over (the old master back as
     * a replica, and the client acknowledging sends again).
     */
    private record Run(int acknowledged, int failed, int lost, int acknowledgedAfter, int lostAfter) {
    }

    /**
     * Sends one message every few milliseconds from one thread; kills the master once some are consumed, lets the
     * old master rejoin, then sends a while longer and waits for the consumer to catch up.
     */
    private Run failoverDuring(RmqProducer producer, Recorder recorder, String prefix) throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> after = ConcurrentHashMap.newKeySet();
        AtomicInteger failed = new AtomicInteger();
        AtomicBoolean over = new AtomicBoolean();
        AtomicBoolean sending = new AtomicBoolean(true);
        Thread sender = new Thread(() -> {
            for (int i = 0; sending.get(); i++) {
                String key = prefix + i;
                boolean sentAfter = over.get();
                try {
                    producer.send(OutgoingMessage.priority("orders", key, 50).withKey(key));
                    acknowledged.add(key);
                    if (sentAfter) {
                        after.add(key);
                    }
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                }
                try {
                    Thread.sleep(5); // a steady stream of sends across the failover
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "sender");
        sender.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.consumed.size() >= 50);
            RedisServer killed = sentinel.killMaster();
            sentinel.rejoin(killed);
            // "after the failover" starts once the client acknowledges sends again with the old master back as a
            // replica: until then it may still be switching
            int acknowledgedAtRejoin = acknowledged.size();
            await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.size() >= acknowledgedAtRejoin + 20);
            over.set(true);
            await().atMost(Duration.ofSeconds(10)).until(() -> after.size() >= 100);
        } finally {
            sending.set(false);
            sender.join();
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> recorder.consumed.containsAll(after));
        int lost = (int) acknowledged.stream().filter(key -> !recorder.consumed.contains(key)).count();
        int lostAfter = (int) after.stream().filter(key -> !recorder.consumed.contains(key)).count();
        return new Run(acknowledged.size(), failed.get(), lost, after.size(), lostAfter);
    }

    static class Recorder {
        final Set<String> consumed = ConcurrentHashMap.newKeySet();

        @RmqListener(topic = "orders")
        void handle(String payload) {
            consumed.add(payload);
        }
    }
}
