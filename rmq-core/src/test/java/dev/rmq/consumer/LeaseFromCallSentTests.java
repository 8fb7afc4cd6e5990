package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.StoredMessage;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer counts a lease from when its poll went out, not from when the reply came: a reply held up longer
 * than the lease brings deliveries whose lease Redis has already ended, and no handler starts on them. The link
 * delays each way by more than the lease, through a proxy, as a pause of the network or of the JVM does.
 */
class LeaseFromCallSentTests extends StandaloneRedisTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private TcpProxy link;
    private RedissonClient viaLink;
    private RmqClient slow;
    private RmqClient direct;
    private RmqConsumerContainer<String> container;

    @AfterEach
    void close() {
        if (container != null) {
            link.latency(Duration.ZERO);
            container.stop();
        }
        if (slow != null) {
            slow.close();
        }
        if (direct != null) {
            direct.close();
        }
        if (viaLink != null) {
            viaLink.shutdown();
        }
        if (link != null) {
            link.close();
        }
    }

    /** What Redis said of a delivery when its handler started: its state and how long its lease still had. */
    private record Seen(int attempt, MessageState state, long leaseLeftMs) {
    }

    @Test
    void noHandlerStartsOnADeliveryWhoseLeaseEndedBeforeTheReplyCame() {
        TopicDefinition topic = TopicDefinition.builder("held", TopicType.PRIORITY).slotAmount(1).leaseTimeout(LEASE)
                .maxRetries(50).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build();
        link = TcpProxy.to(redis.host(), redis.port());
        Config config = new Config();
        config.useSingleServer().setAddress(link.redisAddress()).setTimeout(20_000);
        viaLink = Redisson.create(config);
        slow = RmqClient.builder(viaLink).topic(topic).build();
        direct = RmqClient.builder(redisson).topic(topic).build();
        List<Seen> seen = new CopyOnWriteArrayList<>();
        container = slow.container(topic.name(), String.class, message -> {
            StoredMessage stored = direct.producer().get(MessageRef.of(topic.name(), message.key())).orElseThrow();
            long leaseLeft = stored.leaseDeadline().map(d -> d.toEpochMilli() - redisTimeMs()).orElse(-1L);
            seen.add(new Seen(message.attempt(), stored.state(), leaseLeft));
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200))).build();
        container.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> container.ownedSlots().size() == 1);
        // a call through the link first: it waits for the slow client's scripts, loaded one after another, which
        // would each take a round trip of seconds once the latency is on
        assertThat(slow.producer().get(MessageRef.of(topic.name(), "k"))).isEmpty();

        // each way longer than the lease: every poll's reply comes after the lease it brought has ended
        link.latency(LEASE.multipliedBy(3).dividedBy(2));
        direct.producer().send(OutgoingMessage.priority(topic.name(), "work", 50).withKey("k"));
        // until a second delivery was taken, or (a failure) a handler started on the first
        await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty() || direct.producer()
                .get(MessageRef.of(topic.name(), "k")).map(StoredMessage::attempts).orElse(0) >= 2);
        link.latency(Duration.ZERO);
        await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty());

        assertThat(seen).as("a handler ran only on a delivery Redis still leased to it").allSatisfy(s -> {
            assertThat(s.state()).isEqualTo(MessageState.IN_FLIGHT);
            assertThat(s.leaseLeftMs()).isPositive();
        });
        assertThat(seen.get(0).attempt()).as("the deliveries that came too late were not handled").isGreaterThanOrEqualTo(2);
    }
}
