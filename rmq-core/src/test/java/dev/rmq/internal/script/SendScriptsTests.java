package dev.rmq.internal.script;

import dev.rmq.StandaloneRedisTest;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RScript;
import org.redisson.client.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.rmq.internal.script.SendMessages.message;
import static dev.rmq.internal.script.SendMessages.value;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The merge rules live in two scripts: send.lua for the common send, send_controlled.lua for one with a backlog cap,
 * FIFO or a not-before time. The same sends, through each, must leave Redis holding the same thing and answer the
 * same: a topic that gains a job control later must not start merging differently.
 */
class SendScriptsTests extends StandaloneRedisTest {

    private static final long HOUR = 3_600_000;

    @ParameterizedTest
    @EnumSource(TopicType.class)
    void bothSendScriptsMergeAlikeAndLeaveRedisHoldingTheSame(TopicType type) {
        Side plain = new Side("plain", type, false);
        Side controlled = new Side("controlled", type, true);
        long base = redisTimeMs() + HOUR;
        List<List<SendCall.Message>> calls = List.of(
                List.of(message("a", value(type, base, 1), "first a", 0), message("b", value(type, base, 2), "b", 0)),
                // merges: a range-merge keeps its first due time, the others take the latest value; all take the
                // latest content
                List.of(message("a", value(type, base, 3), "second a", 0)),
                // twice in one call: the second merges into the first
                List.of(message("c", value(type, base, 4), "first c", 0), message("c", value(type, base, 5), "second c", 0)),
                // a time to live, then a merge that drops it
                List.of(message("d", value(type, base, 6), "d with a ttl", 60_000)),
                List.of(message("d", value(type, base, 7), "d without", 0), message("e", value(type, base, 8), "e", 60_000)));
        for (List<SendCall.Message> call : calls) {
            List<SendCall.Result> a = plain.send(call);
            List<SendCall.Result> b = controlled.send(call);
            assertThat(a).as("what both scripts answer for %s", call.stream().map(SendCall.Message::key).toList())
                    .isEqualTo(b);
        }
        if (type == TopicType.PRIORITY) {
            // a retried priority message waits out its backoff in delayed; a send ends the wait and merges into it
            plain.failOnce("b");
            controlled.failOnce("b");
            assertThat(plain.send(List.of(message("b", 40, "b again", 0))))
                    .isEqualTo(controlled.send(List.of(message("b", 40, "b again", 0))))
                    .extracting(SendCall.Result::outcome).containsExactly(SendCall.Outcome.MERGED);
        }

        Map<String, Object> held = plain.held();
        assertThat(held).as("what send.lua left in Redis").isNotEmpty();
        assertThat(controlled.held()).as("what send_controlled.lua left, beside what send.lua left")
                .isEqualTo(held);
    }


    /** One topic whose sends all go through the same script. */
    private final class Side {

        private final String topic;
        private final TopicType type;
        private final boolean controlled;
        private final SlotKeys keys;
        private final ScriptRunner scripts = new ScriptRunner(redisson);

        Side(String topic, TopicType type, boolean controlled) {
            this.topic = topic;
            this.type = type;
            this.controlled = controlled;
            this.keys = new KeyLayout("").slot(topic, 0);
        }

        List<SendCall.Result> send(List<SendCall.Message> messages) {
            // the record's own constructor picks the script, where SendCall.of would pick send.lua for all of these
            SendCall call = new SendCall(type, "rmq:wake:" + topic, 0, 0, 10_000, false, messages, controlled);
            assertThat(call.script()).isEqualTo(controlled ? Script.SEND_CONTROLLED : Script.SEND);
            return Futures.join(scripts.run(keys, call));
        }

        /** Takes every due message and rolls {@code key} back once; the others are committed. */
        void failOnce(String key) {
            RetryPolicy policy = new RetryPolicy(type.scriptCode(), 5, HOUR, 1.0, HOUR, 0, 0, 0, "drop");
            PrepareCall.Polled polled = Futures.join(scripts.run(keys, new PrepareCall(policy, 100, 60_000, "", 1000,
                    100, false, null)));
            List<AckCall.Ack> acks = new ArrayList<>();
            for (PrepareCall.Message message : polled.messages()) {
                acks.add(new AckCall.Ack(message.key().equals(key) ? AckCall.Op.ROLL_BACK : AckCall.Op.RELEASE,
                        message.key(), polled.token(), message.key().equals(key) ? "failed once" : ""));
            }
            Futures.join(scripts.run(keys, new AckCall(policy, "", "rmq:wake:" + topic, 0, acks)));
        }

        /**
         * What the slot holds, key by key with the topic's name taken out: sorted sets as member → score, hashes as
         * field → envelope. Times of the Redis clock (a range-merge's due time, an expiry, a retry) are compared as
         * {@link ClockTime}s, since the two sides send a few milliseconds apart.
         */
        Map<String, Object> held() {
            Map<String, Object> held = new TreeMap<>();
            for (String name : SlotKeys.NAMES) {
                String key = name.equals("store") ? "rmq:{" + topic + "_0}" : "rmq:" + name + "{" + topic + "_0}";
                String kind = String.valueOf(redis.command("TYPE", key));
                String as = name;
                switch (kind) {
                    case "zset" -> {
                        List<?> entries = (List<?>) redis.command("ZRANGE", key, "0", "-1", "WITHSCORES");
                        Map<String, Object> members = new TreeMap<>();
                        for (int i = 0; i < entries.size(); i += 2) {
                            double score = Double.parseDouble(String.valueOf(entries.get(i + 1)));
                            boolean clock = name.equals("expiry") || name.equals("delayed") || name.equals("retry")
                                    || (name.equals("store") && type == TopicType.RANGE_MERGE);
                            members.put(String.valueOf(entries.get(i)), clock ? ClockTime.of(score) : score);
                        }
                        held.put(as, members);
                    }
                    case "hash" -> {
                        Map<String, Object> fields = new TreeMap<>();
                        for (String field : fieldsOf(key)) {
                            Envelope envelope = Envelope.decode(rawField(key, field));
                            // not the envelope's score: send.lua stores Java's envelope as it is, whose score a
                            // delivery fills in, and send_controlled.lua rewrites it with the score; while the message
                            // waits nothing reads it, the store's score (compared above) is what counts
                            fields.put(field, List.of(envelope.attempts(),
                                    ClockTime.of(envelope.expireAt()), envelope.notBefore(), envelope.lastError(),
                                    envelope.headers(), new String(envelope.payload(), StandardCharsets.UTF_8)));
                        }
                        held.put(as, fields);
                    }
                    case "none" -> {
                    }
                    default -> held.put(as, kind + " " + redis.command("DUMP", key).hashCode());
                }
            }
            return held;
        }

        private List<String> fieldsOf(String key) {
            return ((List<?>) redis.command("HKEYS", key)).stream().map(String::valueOf).toList();
        }

        private byte[] rawField(String key, String field) {
            return (byte[]) redisson.getScript(ByteArrayCodec.INSTANCE)
                    .eval(RScript.Mode.READ_ONLY, "return redis.call('HGET', KEYS[1], ARGV[1])",
                            RScript.ReturnType.VALUE, List.<Object>of(key),
                            (Object) field.getBytes(StandardCharsets.UTF_8));
        }
    }
}
