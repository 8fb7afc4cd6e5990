package dev.rmq.consumer;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The failure cases of two-phase consumption, each produced for real with two consumer instances
 * (two Redis clients, as two application instances would have): instance A fails in some way, and
 * instance B must get the message. Nothing may be lost; duplicates only where the case allows them.
 */
class FailureCasesTests extends StandaloneRedisTest {

    private static final TopicDefinition TOPIC = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1)
            .leaseTimeout(Duration.ofMillis(1500)).maxRetries(5).backoff(BackoffPolicy.fixed(Duration.ofMillis(50))).build();

    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();
    private final CountDownLatch releaseA = new CountDownLatch(1);
    private RedissonClient redissonA;
    private RmqClient instanceA;
    private RmqClient instanceB;

    /** A delivery as a handler saw it. */
    record Delivered(String instance, String key, int attempt, String lastError) {
    }

    private final List<Delivered> deliveries = new CopyOnWriteArrayList<>();

    @BeforeEach
    void instances() {
        redissonA = Fixtures.redisson(redis);
        instanceA = RmqClient.builder(redissonA).topic(TOPIC).build();
        instanceB = RmqClient.builder(redisson).topic(TOPIC).build();
        instanceB.producer().send(OutgoingMessage.priority("jobs", "work", 50).withKey("m1"));
    }

    @AfterEach
    void stop() {
        releaseA.countDown();
        containers.forEach(c -> c.stop(Duration.ofSeconds(3)));
        if (!redissonA.isShutdown()) {
            redissonA.shutdown();
        }
    }

    private void start(RmqClient instance, String name, RmqHandler<String> then) {
        RmqConsumerContainer<String> container = instance.container("jobs", String.class, m -> {
            deliveries.add(new Delivered(name, m.key(), m.attempt(), m.lastError()));
            return then.handle(m);
        }).id(name).build();
        containers.add(container);
        container.start();
    }

    private void startBWhenAHasIt() {
        await().atMost(Duration.ofSeconds(5)).until(() -> deliveries.size() == 1);
        start(instanceB, "B", m -> ConsumeResult.success());
    }

    private void awaitDoneInB() {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> deliveries.stream().anyMatch(d -> d.instance().equals("B")));
        await().atMost(Duration.ofSeconds(5)).until(() -> !instanceB.producer().exists(MessageRef.of("jobs", "m1")));
        assertThat(redis.command("ZCARD", "rmq:prepare{jobs_0}")).isEqualTo(0L);
        assertThat(redis.command("HLEN", "rmq:inflight{jobs_0}")).isEqualTo(0L);
        assertThat(instanceB.deadQueue().count("jobs")).isZero();
    }

    private void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aConsumerThatDiesBeforeFinishingHasTheMessageRedeliveredAfterItsLease() {
        start(instanceA, "A", m -> {
            awaitUninterruptibly(releaseA);
            return ConsumeResult.success();
        });
        startBWhenAHasIt();
        redissonA.shutdown();

        awaitDoneInB();
        assertThat(deliveries).containsExactly(new Delivered("A", "m1", 1, ""),
                new Delivered("B", "m1", 2, "lease expired before the consumer acknowledged"));
    }

    @Test
    void aLostCommitReplyOrACommitNeverSentIsADuplicateDelivery() {
        start(instanceA, "A", m -> {
            redissonA.shutdown();
            return ConsumeResult.success();
        });
        startBWhenAHasIt();

        awaitDoneInB();
        assertThat(deliveries).extracting(Delivered::instance, Delivered::attempt)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("A", 1), org.assertj.core.groups.Tuple.tuple("B", 2));
    }

    @Test
    void aConsumerThatFailsAndDiesBeforeRollingBackHasTheMessageRedelivered() {
        start(instanceA, "A", m -> {
            redissonA.shutdown();
            throw new IllegalStateException("failed, then the network went away");
        });
        startBWhenAHasIt();

        awaitDoneInB();
        assertThat(deliveries).extracting(Delivered::instance).containsExactly("A", "B");
        assertThat(deliveries.get(1).lastError()).isEqualTo("lease expired before the consumer acknowledged");
    }

    @Test
    void aConsumerTooSlowForItsLeaseCausesADuplicateAndItsLateCommitIsRefused() throws InterruptedException {
        CountDownLatch bCommitted = new CountDownLatch(1);
        start(instanceA, "A", m -> {
            awaitUninterruptibly(releaseA);
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> deliveries.size() == 1);
        start(instanceB, "B", m -> {
            // B holds the redelivery until A has tried to commit its stale delivery
            bCommitted.await(10, TimeUnit.SECONDS);
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.size() == 2);
        assertThat(instanceB.producer().get(MessageRef.of("jobs", "m1")).orElseThrow().state()).isEqualTo(MessageState.IN_FLIGHT);

        releaseA.countDown();
        // A's commit quotes its old lease: the message stays in flight for B
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() ->
                instanceB.producer().get(MessageRef.of("jobs", "m1")).map(s -> s.state() == MessageState.IN_FLIGHT).orElse(false));
        bCommitted.countDown();

        awaitDoneInB();
        assertThat(deliveries).extracting(Delivered::instance, Delivered::attempt)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("A", 1), org.assertj.core.groups.Tuple.tuple("B", 2));
    }

    @Test
    void aHandlerThatExtendsItsLeaseKeepsTheMessage() {
        CountDownLatch extended = new CountDownLatch(1);
        start(instanceA, "A", m -> {
            m.extendLease(Duration.ofSeconds(20));
            extended.countDown();
            awaitUninterruptibly(releaseA);
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> extended.getCount() == 0);
        start(instanceB, "B", m -> ConsumeResult.success());

        // well past the 1.5 s lease, B polls the slot many times and must not get the message
        await().during(Duration.ofMillis(3000)).atMost(Duration.ofSeconds(4)).until(() -> deliveries.size() == 1);
        releaseA.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> !instanceB.producer().exists(MessageRef.of("jobs", "m1")));
        assertThat(deliveries).extracting(Delivered::instance).containsExactly("A");
    }

    @Test
    void theContainerExtendsLeasesOfABatchThatOutlastsHalfTheLease() {
        for (int i = 2; i <= 4; i++) {
            instanceB.producer().send(OutgoingMessage.priority("jobs", "work", 50 - i).withKey("m" + i));
        }
        start(instanceA, "A", m -> {
            // the handler's work takes 600 ms: a slow handler is what this test is about
            Thread.sleep(600);
            return ConsumeResult.success();
        });
        // B starts only once A has polled the whole batch, so the leases decide who gets what
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.command("ZCARD", "rmq:prepare{jobs_0}").equals(4L));
        start(instanceB, "B", m -> ConsumeResult.success());

        // four messages of 600 ms each in one 1.5 s lease: without extension B would get the last ones
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.command("ZCARD", "rmq:{jobs_0}").equals(0L)
                && redis.command("ZCARD", "rmq:prepare{jobs_0}").equals(0L));
        assertThat(deliveries).hasSize(4).allSatisfy(d -> assertThat(d.instance()).isEqualTo("A"));
    }
    @Test
    void anEndingWhoseLeaseRanThroughARenewalGoesOutBeforeTheNextHandler() {
        for (int i = 2; i <= 3; i++) {
            instanceB.producer().send(OutgoingMessage.priority("jobs", "work", 50 - i).withKey("m" + i));
        }
        List<Boolean> m2SettledBeforeM3 = new CopyOnWriteArrayList<>();
        start(instanceA, "A", m -> {
            switch (m.key()) {
                // m1 runs past the first renewal (at 750 ms), so that its ending goes out as m2 starts
                case "m1" -> Thread.sleep(1000);
                // m2 runs through the second renewal (1.5 s), which leaves its lease alone while it runs: the lease
                // then ends at the third renewal, and m2 ends less than half a lease after the last flush
                case "m2" -> Thread.sleep(600);
                default -> m2SettledBeforeM3.add(!instanceB.producer().exists(MessageRef.of("jobs", "m2")));
            }
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> m2SettledBeforeM3.size() == 1);
        assertThat(m2SettledBeforeM3).containsExactly(true);
    }
}
