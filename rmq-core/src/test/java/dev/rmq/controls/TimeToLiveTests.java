package dev.rmq.controls;

import dev.rmq.dead.DeadReason;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.dead.DeadMessage;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.internal.script.RetryPolicy;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicBuilder;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class TimeToLiveTests extends ControlsTest {

    private static TopicBuilder topic(String name, TopicType type) {
        return TopicDefinition.builder(name, type).slotAmount(1).leaseTimeout(Duration.ofSeconds(5)).maxRetries(3)
                .backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)));
    }

    @Test
    void aMessageWhoseTimeToLiveRanOutWhileWaitingNeverReachesAHandlerAndIsCountedAndDropped() throws Exception {
        RmqClient rmq = client(topic("jobs", TopicType.PRIORITY).ttl(Duration.ofMillis(300)).build());
        for (int i = 0; i < 20; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "stale-" + i, 50));
        }
        // read after the last stale send: each message's time to live runs from its own send
        long sentBy = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("jobs", "fresh", 50).withTtl(Duration.ofMinutes(1)));
        awaitRedisClockPast(sentBy, 300);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            handled.add(m.payload());
            return ConsumeResult.success();
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> count("rmq.expired", "topic", "jobs", "result", "dropped") == 20);
        await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains("fresh"));
        holdsFor(Duration.ofMillis(300), () -> assertThat(handled).containsExactly("fresh"));
        assertThat(rmq.deadQueue().count("jobs")).isZero();
        assertThat(rmq.inspector().totals("jobs").backlog()).isZero();
        assertThat(redis.command("EXISTS", "rmq:expiry{jobs_0}")).isEqualTo(0L);
    }

    @Test
    void aTopicMayBuryExpiredMessagesWithTheReasonExpired() throws Exception {
        RmqClient rmq = client(topic("orders", TopicType.FIXED_TIME).ttl(Duration.ofMillis(200)).expiry(ExpiryAction.DEAD)
                .build());
        // due in 5 s, but its time to live runs out 200 ms after its send: it never becomes deliverable, however slow
        // the send
        rmq.producer().send(OutgoingMessage.fixedTime("orders", "o1", java.time.Instant.ofEpochMilli(redisTimeMs() + 5000))
                .withKey("o1"));
        List<String> handled = new CopyOnWriteArrayList<>();
        start(rmq, "orders", String.class, m -> {
            handled.add(m.key());
            return ConsumeResult.success();
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.deadQueue().count("orders") == 1);
        DeadMessage dead = rmq.deadQueue().list("orders", 0, 0, 10).get(0);
        assertThat(dead.key()).isEqualTo("o1");
        assertThat(dead.reason()).isEqualTo(DeadReason.EXPIRED);
        assertThat(dead.lastError()).isEqualTo("its time to live ran out before it was delivered");
        assertThat(dead.payloadText()).isEqualTo("o1");
        // the worker counts the expiry once the poll's reply is back, which may be just after Redis shows it dead
        await().atMost(Duration.ofSeconds(5))
                .until(() -> count("rmq.expired", "topic", "orders", "result", "dead") == 1);
        holdsFor(Duration.ofMillis(300), () -> assertThat(handled).isEmpty());
    }

    @Test
    void aMessageWaitingForItsRetryWhenItsTimeToLiveRunsOutIsNotDeliveredAgain() throws Exception {
        // a time to live long enough for the first delivery to come before it on a loaded machine
        RmqClient rmq = client(topic("jobs", TopicType.PRIORITY).ttl(Duration.ofMillis(1500))
                .backoff(BackoffPolicy.fixed(Duration.ofSeconds(3))).build());
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            attempts.add(m.attempt());
            return ConsumeResult.retry("not yet");
        });
        rmq.producer().send(OutgoingMessage.priority("jobs", "j", 50).withKey("j"));

        // the first attempt fails; its 3 s backoff outlasts the 1.5 s time to live, and the wait outlasts the backoff
        await().atMost(Duration.ofSeconds(5)).until(() -> count("rmq.expired", "topic", "jobs") == 1);
        holdsFor(Duration.ofMillis(3000), () -> assertThat(attempts).containsExactly(1));
        assertThat(rmq.producer().get(MessageRef.of("jobs", "j"))).isEmpty();
    }

    @Test
    void aDeliveryInFlightWhenItsTimeToLivePassesFinishesItsAttemptButIsNotRetried() throws Exception {
        // a time to live long enough for the delivery to come before it on a loaded machine
        RmqClient rmq = client(topic("jobs", TopicType.PRIORITY).ttl(Duration.ofMillis(1000)).build());
        List<String> handled = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            Thread.sleep(1100); // the handler's work, which must outlast the time to live
            handled.add(m.key() + "#" + m.attempt());
            return m.key().equals("ok") ? ConsumeResult.success() : ConsumeResult.retry("too late anyway");
        }, dev.rmq.consumer.ConsumerSettings.DEFAULTS.withBatchSize(2).withIdlePoll(Duration.ofMillis(200)));
        // one send call stores both, and the poll it wakes takes both; each handler outlasts the time to live
        rmq.producer().sendAll(List.of(OutgoingMessage.priority("jobs", "ok", 60).withKey("ok"),
                OutgoingMessage.priority("jobs", "fail", 50).withKey("fail")));

        await().atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> count("rmq.expired", "topic", "jobs") == 1);
        holdsFor(Duration.ofMillis(1500), () -> assertThat(handled).containsExactly("ok#1", "fail#1"));
        assertThat(rmq.inspector().totals("jobs").backlog()).isZero();
        assertThat(rmq.inspector().totals("jobs").inFlight()).isZero();
    }

    @Test
    void aMergeTakesTheLatestSendsTimeToLiveAndZeroMeansNoneEvenOnATopicWithOne() throws Exception {
        RmqClient rmq = client(topic("jobs", TopicType.PRIORITY).ttl(Duration.ofMillis(200)).build());
        rmq.producer().send(OutgoingMessage.priority("jobs", "a1", 50).withKey("a"));
        rmq.producer().send(OutgoingMessage.priority("jobs", "a2", 50).withKey("a").withTtl(Duration.ofMinutes(1)));
        rmq.producer().send(OutgoingMessage.priority("jobs", "b1", 50).withKey("b").withTtl(Duration.ofMinutes(1)));
        rmq.producer().send(OutgoingMessage.priority("jobs", "b2", 50).withKey("b"));
        // read after b2's send, whose time to live runs from then
        long sentBy = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("jobs", "c", 50).withKey("c").withTtl(Duration.ZERO));
        awaitRedisClockPast(sentBy, 200);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            handled.add(m.payload());
            return ConsumeResult.success();
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 2 && count("rmq.expired", "topic", "jobs") == 1);
        assertThat(handled).containsExactlyInAnyOrder("a2", "c");
    }

    @Test
    void onePollRemovesAtMostItsLimitOfExpiredMessagesSoASlotIsNeverScannedWhole() throws Exception {
        RmqClient rmq = client(topic("jobs", TopicType.PRIORITY).ttl(Duration.ofMillis(1)).build());
        List<OutgoingMessage> messages = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            messages.add(OutgoingMessage.priority("jobs", "m" + i, 20 + i % 7));
        }
        rmq.producer().sendAll(messages);
        long sentBy = redisTimeMs();
        awaitRedisClockPast(sentBy, 1);
        ScriptRunner scripts = new ScriptRunner(redisson);
        PrepareCall poll = new PrepareCall(RetryPolicy.of(rmq.topics().require("jobs")), 10, 5000, "", 1000, 100, false, null);

        PrepareCall.Polled polled = Futures.join(scripts.run(new KeyLayout("").slot("jobs", 0), poll));

        // 100 by the sweep, then the 10 the poll took, whose time to live had run out too
        assertThat(polled.messages()).isEmpty();
        assertThat(polled.expired()).isEqualTo(110);
        assertThat(polled.waitMicros()).as("more may be due at once").isZero();
        assertThat(redis.command("ZCARD", "rmq:expiry{jobs_0}")).isEqualTo(390L);
        assertThat(redis.command("ZCARD", "rmq:{jobs_0}")).isEqualTo(390L);
        assertThat(redis.command("HLEN", "rmq:body{jobs_0}")).isEqualTo(390L);
    }

    @Test
    void aWaitingMessageShowsWhenItExpires() {
        RmqClient rmq = client(topic("jobs", TopicType.PRIORITY).ttl(Duration.ofMinutes(5)).build());
        long before = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("jobs", "j", 50).withKey("j"));
        var stored = rmq.producer().get(MessageRef.of("jobs", "j")).orElseThrow();
        assertThat(stored.state()).isEqualTo(MessageState.WAITING);
        assertThat(stored.expiresAt()).hasValueSatisfying(at -> assertThat(at.toEpochMilli())
                .isBetween(before + 300_000, redisTimeMs() + 300_000));
    }
}
