package dev.rmq.internal.script;

import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.producer.MessageState;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * A message's first delivery goes out as its envelope was stored when that envelope already holds the score it is
 * taken at, as the producer writes a priority or a fixed time: its attempts 0 stand for attempt 1, and whatever ends
 * the delivery counts it so. Every other delivery is rewritten with its attempt and the score it was taken at.
 */
class FirstDeliveryTests extends StandaloneRedisTest {

    private final SlotKeys keys = new KeyLayout("").slot("first", 0);
    private final ScriptRunner scripts = new ScriptRunner(redisson);

    @ParameterizedTest
    @EnumSource(value = TopicType.class, names = {"PRIORITY", "FIXED_TIME"})
    void aMessageSentWithItsScoreIsDeliveredAsItWasStored(TopicType type) {
        long value = type == TopicType.PRIORITY ? 30 : redisTimeMs() - 1;
        send(type, "m", value, Envelope.sentScore(type, value));
        byte[] stored = found(type, "m").envelope();

        PrepareCall.Message delivered = onlyMessage(poll(policy(type, 3)));

        assertThat(delivered.envelope()).as("the stored bytes, not a copy rewritten").isEqualTo(stored);
        Envelope envelope = Envelope.decode(delivered.envelope());
        assertThat(envelope.attempts()).isZero();
        assertThat(envelope.deliveredAttempt()).isEqualTo(1);
        assertThat(Envelope.deliveredAttempt(delivered.envelope())).isEqualTo(1);
        assertThat(envelope.score()).isEqualTo((double) value);
        GetCall.Found inFlight = found(type, "m");
        assertThat(inFlight.state()).isEqualTo(MessageState.IN_FLIGHT);
        assertThat(inFlight.envelope()).isEqualTo(stored);
    }

    @Test
    void aRangeMergeMessageIsRewrittenWithTheDueTimeTheSendScriptGaveIt() {
        send(TopicType.RANGE_MERGE, "r", 0, Envelope.sentScore(TopicType.RANGE_MERGE, 0));
        double due = found(TopicType.RANGE_MERGE, "r").score();

        Envelope envelope = Envelope.decode(onlyMessage(poll(policy(TopicType.RANGE_MERGE, 3))).envelope());

        assertThat(envelope.attempts()).isEqualTo(1);
        assertThat(envelope.score()).isEqualTo(due);
    }

    @Test
    void anEnvelopeWithoutItsScoreIsRewrittenWithTheStoresScore() {
        // as a send stored before envelopes carried their score wrote it
        send(TopicType.PRIORITY, "old", 30, 0);

        Envelope envelope = Envelope.decode(onlyMessage(poll(policy(TopicType.PRIORITY, 3))).envelope());

        assertThat(envelope.attempts()).isEqualTo(1);
        assertThat(envelope.score()).isEqualTo(30.0);
    }

    @Test
    void aFailedFirstDeliveryCountsAsAnAttemptAndTheNextIsRewritten() {
        RetryPolicy oneRetry = policy(TopicType.PRIORITY, 1);
        PrepareCall.Polled first = firstDeliveryAsStored(oneRetry, 0, 60_000);

        assertThat(ack(oneRetry, AckCall.Op.RETRY_NOW, "m", first.token(), "boom")).isEqualTo(AckOutcome.RETRY);
        Envelope waiting = Envelope.decode(found(TopicType.PRIORITY, "m").envelope());
        assertThat(waiting.attempts()).as("the failed first delivery, counted").isEqualTo(1);
        assertThat(waiting.score()).isEqualTo(30.0);
        assertThat(waiting.lastError()).isEqualTo("boom");

        PrepareCall.Polled second = poll(oneRetry);
        Envelope retried = Envelope.decode(onlyMessage(second).envelope());
        assertThat(retried.attempts()).isEqualTo(2);
        assertThat(retried.deliveredAttempt()).isEqualTo(2);

        assertThat(ack(oneRetry, AckCall.Op.ROLL_BACK, "m", second.token(), "boom again")).isEqualTo(AckOutcome.DEAD);
        Envelope dead = Envelope.decode(found(TopicType.PRIORITY, "m").envelope());
        assertThat(dead.attempts()).isEqualTo(2);
    }

    @Test
    void aFirstDeliveryThatFailsWithNoRetryLeftDiesAsItsFirstAttempt() {
        RetryPolicy noRetry = policy(TopicType.PRIORITY, 0);
        PrepareCall.Polled polled = firstDeliveryAsStored(noRetry, 0, 60_000);

        assertThat(ack(noRetry, AckCall.Op.ROLL_BACK, "m", polled.token(), "boom")).isEqualTo(AckOutcome.DEAD);
        GetCall.Found dead = found(TopicType.PRIORITY, "m");
        assertThat(dead.state()).isEqualTo(MessageState.DEAD);
        assertThat(Envelope.decode(dead.envelope()).attempts()).isEqualTo(1);
    }

    @Test
    void aReleasedFirstDeliveryIsAFirstDeliveryAgain() {
        RetryPolicy policy = policy(TopicType.FIXED_TIME, 3);
        long due = redisTimeMs() - 1;
        send(TopicType.FIXED_TIME, "m", due, due);
        PrepareCall.Polled first = poll(policy);

        assertThat(ack(policy, AckCall.Op.RELEASE, "m", first.token(), "")).isEqualTo(AckOutcome.RELEASED);
        byte[] released = found(TopicType.FIXED_TIME, "m").envelope();
        assertThat(Envelope.decode(released).attempts()).isZero();
        assertThat(Envelope.decode(released).score()).isEqualTo((double) due);

        PrepareCall.Message again = onlyMessage(poll(policy));
        assertThat(again.envelope()).isEqualTo(released);
        assertThat(Envelope.deliveredAttempt(again.envelope())).isEqualTo(1);
    }

    @Test
    void aFirstDeliveryWhoseLeaseRunsOutIsRecoveredAsAFailedAttempt() {
        RetryPolicy policy = policy(TopicType.PRIORITY, 3);
        PrepareCall.Polled first = firstDeliveryAsStored(policy, 0, 1);
        long leaseOver = first.token() / 1000 + 1;
        await().atMost(Duration.ofSeconds(2)).until(() -> redisTimeMs() > leaseOver);

        PrepareCall.Polled next = poll(policy, 60_000);

        assertThat(next.recovered()).extracting(PrepareCall.Recovered::key, PrepareCall.Recovered::outcome)
                .containsExactly(tuple("m", AckOutcome.RETRY));
        Envelope waiting = Envelope.decode(found(TopicType.PRIORITY, "m").envelope());
        assertThat(waiting.attempts()).as("the recovered first delivery, counted").isEqualTo(1);
        assertThat(waiting.lastError()).contains("lease expired");
    }

    @Test
    void aFirstDeliveryThatFailsAfterItsTimeToLiveDiesCountedAsItsAttempt() {
        RetryPolicy policy = policy(TopicType.PRIORITY, 3);
        PrepareCall.Polled polled = firstDeliveryAsStored(policy, 200, 60_000);
        long sent = redisTimeMs();
        await().atMost(Duration.ofSeconds(2)).until(() -> redisTimeMs() > sent + 250);

        assertThat(ack(policy, AckCall.Op.ROLL_BACK, "m", polled.token(), "too late")).isEqualTo(AckOutcome.EXPIRED);
        GetCall.Found dead = found(TopicType.PRIORITY, "m");
        assertThat(dead.state()).isEqualTo(MessageState.DEAD);
        assertThat(Envelope.decode(dead.envelope()).attempts()).isEqualTo(1);
    }

    /**
     * Sends priority message "m" (priority 30, the score its envelope holds, and a time to live of {@code ttlMs}, 0
     * for none) and takes it under a lease of {@code leaseMs}: a first delivery, sent as it was stored.
     */
    private PrepareCall.Polled firstDeliveryAsStored(RetryPolicy policy, long ttlMs, long leaseMs) {
        send(TopicType.PRIORITY, "m", 30, 30, ttlMs);
        PrepareCall.Polled polled = poll(policy, leaseMs);
        assertThat(Envelope.decode(onlyMessage(polled).envelope()).attempts()).isZero();
        return polled;
    }

    private static RetryPolicy policy(TopicType type, int maxRetries) {
        return new RetryPolicy(type.scriptCode(), maxRetries, 10, 1.0, 10, 0, 0, 3, "dead");
    }

    private void send(TopicType type, String key, long value, double score) {
        send(type, key, value, score, 0);
    }

    private void send(TopicType type, String key, long value, double score, long ttlMs) {
        byte[] envelope = Envelope.encodeNew(Map.of("h", "v"), key.getBytes(StandardCharsets.UTF_8), score, ttlMs, 0);
        Futures.join(scripts.run(keys, SendCall.of(type, "rmq:wake:first", 0, 0, 10_000, false,
                List.of(new SendCall.Message(key, value, envelope)))));
    }

    private PrepareCall.Polled poll(RetryPolicy policy) {
        return poll(policy, 60_000);
    }

    private PrepareCall.Polled poll(RetryPolicy policy, long leaseMs) {
        return Futures.join(scripts.run(keys, new PrepareCall(policy, 10, leaseMs, "", 1000, 100, false, null)));
    }

    private AckOutcome ack(RetryPolicy policy, AckCall.Op op, String key, long token, String reason) {
        return Futures.join(scripts.run(keys, new AckCall(policy, "", "rmq:wake:first", 0,
                List.of(new AckCall.Ack(op, key, token, reason))))).get(0);
    }

    private GetCall.Found found(TopicType type, String key) {
        return Futures.join(scripts.run(keys, new GetCall(type, key))).orElseThrow();
    }

    private static PrepareCall.Message onlyMessage(PrepareCall.Polled polled) {
        assertThat(polled.messages()).hasSize(1);
        return polled.messages().get(0);
    }
}
