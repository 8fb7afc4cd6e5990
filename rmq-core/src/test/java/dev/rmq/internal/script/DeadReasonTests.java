package dev.rmq.internal.script;

import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.dead.DeadReason;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each way into the dead queue leaves its reason code beside the text of the last error, so that tools can tell
 * why a message died without reading words meant for people.
 */
class DeadReasonTests extends StandaloneRedisTest {

    private final SlotKeys keys = new KeyLayout("").slot("jobs", 0);
    private final ScriptRunner scripts = new ScriptRunner(redisson);
    /** No retry after the first attempt; expired messages go dead. */
    private final RetryPolicy policy = new RetryPolicy("P", 0, 10, 1.0, 10, 0, 0, 3, "dead");

    @Test
    void eachWayIntoTheDeadQueueKeepsItsReason() {
        send("verdict", 0);
        send("spent", 0);
        send("garbled", 0);
        PrepareCall.Polled polled = poll(60_000);
        assertThat(polled.messages()).hasSize(3);
        List<AckOutcome> outcomes = Futures.join(scripts.run(keys, new AckCall(policy, "", "rmq:wake:jobs", 0, List.of(
                new AckCall.Ack(AckCall.Op.DEAD, "verdict", polled.token(), "not for us"),
                new AckCall.Ack(AckCall.Op.ROLL_BACK, "spent", polled.token(), "boom"),
                new AckCall.Ack(AckCall.Op.UNDECODABLE, "garbled", polled.token(), "cannot decode: bad json")))));
        assertThat(outcomes).containsOnly(AckOutcome.DEAD);

        // a lease that runs out on the last attempt
        send("abandoned", 0);
        assertThat(poll(1).messages()).hasSize(1);
        // an expiry, on a topic that sends expired messages to dead
        send("stale", 1);
        long sent = redisTimeMs();
        await().atMost(Duration.ofSeconds(2)).until(() -> redisTimeMs() > sent + 2);
        poll(60_000);

        assertThat(dead()).isEqualTo(Map.of(
                "verdict", List.of(DeadReason.HANDLER_VERDICT, "not for us"),
                "spent", List.of(DeadReason.RETRIES_SPENT, "boom"),
                "garbled", List.of(DeadReason.UNDECODABLE, "cannot decode: bad json"),
                "abandoned", List.of(DeadReason.LEASE_EXPIRED, "lease expired before the consumer acknowledged"),
                "stale", List.of(DeadReason.EXPIRED, "its time to live ran out before it was delivered")));
    }

    @Test
    void bytesThatAreNotAnEnvelopeDieAsUndecodable() {
        redis.command("ZADD", "rmq:{jobs_0}", "30", "junk");
        redis.command("HSET", "rmq:body{jobs_0}", "junk", "not an envelope");
        PrepareCall.Polled polled = poll(60_000);
        Futures.join(scripts.run(keys, new AckCall(policy, "", "rmq:wake:jobs", 0, List.of(
                new AckCall.Ack(AckCall.Op.UNDECODABLE, "junk", polled.token(), "")))));

        assertThat(dead()).isEqualTo(Map.of("junk", List.of(DeadReason.UNDECODABLE, "undecodable envelope")));
    }

    @Test
    void aDeadMessageStoredBeforeReasonsWereKeptReadsAsUnknownWithItsWholeError() {
        byte[] old = Envelope.encodeNew(Map.of(), "x".getBytes(StandardCharsets.UTF_8), 0, 0, 0);
        Envelope decoded = Envelope.decode(old);
        assertThat(decoded.deadReason()).isEmpty();
        assertThat(DeadReason.of(decoded.deadReason())).isEqualTo(DeadReason.UNKNOWN);
        assertThat(DeadReason.of("a code of a later version")).isEqualTo(DeadReason.UNKNOWN);
    }

    private void send(String key, long ttlMs) {
        Futures.join(scripts.run(keys, SendCall.of(TopicType.PRIORITY, "rmq:wake:jobs", 0, 0, 10_000, false,
                List.of(new SendCall.Message(key, 30, Envelope.encodeNew(Map.of(), key.getBytes(StandardCharsets.UTF_8), 0,
                        ttlMs, 0))))));
    }

    private PrepareCall.Polled poll(long leaseMs) {
        return Futures.join(scripts.run(keys, new PrepareCall(policy, 10, leaseMs, "", 1000, 100, false, null)));
    }

    /** The dead queue: key → its reason and the text of its last error. */
    private Map<String, List<Object>> dead() {
        Map<String, List<Object>> dead = new TreeMap<>();
        for (DeadListCall.Entry entry : Futures.join(scripts.run(keys, new DeadListCall(0, 100)))) {
            Envelope envelope = Envelope.decode(entry.envelope());
            dead.put(entry.key(), List.of(DeadReason.of(envelope.deadReason()), envelope.lastError()));
        }
        return dead;
    }
}
