package dev.rmq.internal.script;

import dev.rmq.StandaloneRedisTest;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RTopic;
import org.redisson.client.codec.StringCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.rmq.internal.script.SendMessages.message;
import static dev.rmq.internal.script.SendMessages.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * On a Redis that is not a Cluster, one send.lua call may carry the messages of several slots of a topic, each
 * slot's keys a block of KEYS. Each slot must end up as calls of its own would leave it, its consumers woken on its
 * own index, and a call whose slots do not fit its messages or keys must write nothing.
 */
class SeveralSlotsSendTests extends StandaloneRedisTest {

    private static final long HOUR = 3_600_000;
    private static final KeyLayout LAYOUT = new KeyLayout("");

    /** Each type, by FCALL where Redis has Functions and by EVALSHA, whose script defines the binder on every call. */
    static Stream<Arguments> typesAndModes() {
        return Stream.of(TopicType.values()).flatMap(type -> Stream.of(Arguments.of(type, true),
                Arguments.of(type, false)));
    }

    @ParameterizedTest(name = "{0}, functions wanted: {1}")
    @MethodSource("typesAndModes")
    void oneCallOfSeveralSlotsLeavesEachSlotAsCallsOfItsOwnWould(TopicType type, boolean functions) {
        ScriptRunner scripts = new ScriptRunner(redisson, functions);
        long base = redisTimeMs() + HOUR;
        // slot 0 twice (the second merges into the first), then slots 3 and 7
        List<SendCall.Message> slot0 = List.of(message("a", value(type, base, 1), "a", 0),
                message("a", value(type, base, 2), "a again", 0));
        List<SendCall.Message> slot3 = List.of(message("b", value(type, base, 3), "b", 60_000));
        List<SendCall.Message> slot7 = List.of(message("c", value(type, base, 4), "c", 0),
                message("d", value(type, base, 5), "d", 0));
        List<SendCall.Message> all = new ArrayList<>(slot0);
        all.addAll(slot3);
        all.addAll(slot7);

        List<SendCall.Result> together = Futures.join(scripts.run(
                List.of(LAYOUT.slot("together", 0), LAYOUT.slot("together", 3), LAYOUT.slot("together", 7)),
                SendCall.ofSlots(type, "rmq:wake:together", List.of(new SendCall.Share(0, 2), new SendCall.Share(3, 1),
                        new SendCall.Share(7, 2)), 10_000, all)));
        List<SendCall.Result> alone = new ArrayList<>();
        alone.addAll(sendAlone(scripts, type, 0, slot0));
        alone.addAll(sendAlone(scripts, type, 3, slot3));
        alone.addAll(sendAlone(scripts, type, 7, slot7));

        assertThat(together).isEqualTo(alone).extracting(SendCall.Result::outcome).containsExactly(
                SendCall.Outcome.ADDED, SendCall.Outcome.MERGED, SendCall.Outcome.ADDED, SendCall.Outcome.ADDED,
                SendCall.Outcome.ADDED);
        for (int slot : new int[] { 0, 3, 7 }) {
            assertThat(held("together", slot, type)).as("slot %d", slot).isNotEmpty()
                    .isEqualTo(held("alone", slot, type));
        }
        assertThat(held("together", 1, type)).as("a slot the call did not name").isEmpty();
    }

    @Test
    void eachSlotOfTheCallWakesItsOwnConsumersByItsOwnEarliestMessage() {
        ScriptRunner scripts = new ScriptRunner(redisson);
        long far = redisTimeMs() + 10 * HOUR;
        // consumers of slots 2 and 5 plan to poll in ten hours; slot 9's has no plan (it polls anyway)
        for (int slot : new int[] { 2, 5 }) {
            redis.command("SET", LAYOUT.slot("woken", slot).wake(), "d" + far);
        }
        List<String> woken = new CopyOnWriteArrayList<>();
        RTopic channel = redisson.getTopic("rmq:wake:woken", StringCodec.INSTANCE);
        int listener = channel.addListener(String.class, (ch, text) -> woken.add(text));
        try {
            long soon = redisTimeMs() + 60_000;
            // slot 2's message is due before slot 5's earliest: slot 5 must plan by its own
            Futures.join(scripts.run(List.of(LAYOUT.slot("woken", 2), LAYOUT.slot("woken", 5), LAYOUT.slot("woken", 9)),
                    SendCall.ofSlots(TopicType.FIXED_TIME, "rmq:wake:woken", List.of(new SendCall.Share(2, 1),
                            new SendCall.Share(5, 2), new SendCall.Share(9, 1)), 10_000, List.of(
                            message("x", soon - 30_000, "x", 0), message("y", soon + 1, "y", 0),
                            message("z", soon, "z", 0), message("w", soon, "w", 0)))));
            // published after the call's, on the same channel: once it arrives, every wake-up of the call has
            channel.publish("end");

            await().atMost(5, TimeUnit.SECONDS).until(() -> woken.contains("end"));
            assertThat(woken).containsExactly("2", "5", "end");
            assertThat(redis.command("GET", LAYOUT.slot("woken", 2).wake())).isEqualTo("d" + (soon - 30_000));
            assertThat(redis.command("GET", LAYOUT.slot("woken", 5).wake())).as("slot 5's plan, its own earliest")
                    .isEqualTo("d" + soon);
        } finally {
            channel.removeListener(listener);
        }
    }

    @Test
    void whatACallNotedOfOneSlotIsForgottenForTheNext() {
        ScriptRunner scripts = new ScriptRunner(redisson);
        SlotKeys idle = LAYOUT.slot("noted", 0);
        SlotKeys busy = LAYOUT.slot("noted", 1);
        // slot 1 has a delivery of "k" in flight; slot 0 has nothing in flight
        Futures.join(scripts.run(busy, SendCall.of(TopicType.PRIORITY, "rmq:wake:noted", 1, 0, 10_000, false,
                List.of(message("k", 5, "k", 0)))));
        RetryPolicy policy = new RetryPolicy("P", 5, HOUR, 1.0, HOUR, 0, 0, 0, "drop");
        assertThat(Futures.join(scripts.run(busy, new PrepareCall(policy, 10, 60_000, "", 1000, 100, false, null)))
                .messages()).hasSize(1);

        // slot 0's new key is added with nothing in flight there; slot 1's "k" must still wait for its delivery
        List<SendCall.Result> results = Futures.join(scripts.run(List.of(idle, busy), SendCall.ofSlots(
                TopicType.PRIORITY, "rmq:wake:noted", List.of(new SendCall.Share(0, 1), new SendCall.Share(1, 1)),
                10_000, List.of(message("x", 5, "x", 0), message("k", 6, "k again", 0)))));

        assertThat(results).extracting(SendCall.Result::outcome).containsExactly(SendCall.Outcome.ADDED,
                SendCall.Outcome.BEHIND);
    }

    @ParameterizedTest(name = "slots \"{0}\"")
    @ValueSource(strings = { "0 1 1 1", "0 2 1 0 2 1", "0 1 1 1 2", "0 1 1 x 2 1" })
    void aCallWhoseSlotsDoNotFitItsMessagesIsRefusedAndWritesNothing(String slots) {
        ScriptRunner scripts = new ScriptRunner(redisson);
        long soon = redisTimeMs() + 60_000;
        SendCall call = SendCall.ofSlots(TopicType.FIXED_TIME, "rmq:wake:bad", List.of(new SendCall.Share(0, 1),
                new SendCall.Share(1, 1), new SendCall.Share(2, 1)), 10_000, List.of(message("a", soon, "a", 0),
                message("b", soon, "b", 0), message("c", soon, "c", 0)));
        byte[][] args = call.argv();
        args[2] = slots.getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> Futures.join(scripts.run(List.of(LAYOUT.slot("bad", 0), LAYOUT.slot("bad", 1),
                LAYOUT.slot("bad", 2)), new TamperedCall(call, args)))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("disagree on a call's slots: slots \"" + slots + "\" does not fit 3 message(s)");
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
    }

    @Test
    void aCallWhoseSlotsDoNotFitItsKeysIsRefusedAndWritesNothing() {
        ScriptRunner scripts = new ScriptRunner(redisson);
        long soon = redisTimeMs() + 60_000;
        SendCall call = SendCall.ofSlots(TopicType.FIXED_TIME, "rmq:wake:short", List.of(new SendCall.Share(0, 1),
                new SendCall.Share(1, 1), new SendCall.Share(2, 1)), 10_000, List.of(message("a", soon, "a", 0),
                message("b", soon, "b", 0), message("c", soon, "c", 0)));

        // the keys of two of its three slots
        assertThatThrownBy(() -> Futures.join(scripts.run(List.of(LAYOUT.slot("short", 0), LAYOUT.slot("short", 1)),
                call))).isInstanceOf(IllegalStateException.class)
                .hasMessage("the Java and Lua sides of send.lua disagree on a call's slots: slots \"0 1 1 1 2 1\" does"
                        + " not fit 3 message(s) and 12 key(s)");
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
    }

    @Test
    void aPipelinedCallOfSeveralSlotsKeepsItsReplyUnderItsCallKey() {
        ScriptRunner scripts = new ScriptRunner(redisson);
        long soon = redisTimeMs() + 60_000;
        ScriptRunner.Pipeline pipeline = scripts.pipeline();
        var results = pipeline.add(List.of(LAYOUT.slot("replayed", 4), LAYOUT.slot("replayed", 6)),
                SendCall.ofSlots(TopicType.FIXED_TIME, "rmq:wake:replayed", List.of(new SendCall.Share(4, 1),
                        new SendCall.Share(6, 1)), 10_000, List.of(message("a", soon, "a", 0),
                        message("b", soon, "b", 0))));
        Futures.join(pipeline.execute());

        assertThat(Futures.join(results)).extracting(SendCall.Result::outcome)
                .containsExactly(SendCall.Outcome.ADDED, SendCall.Outcome.ADDED);
        List<?> callKeys = (List<?>) redis.command("KEYS", "rmq:call{replayed_4}:*");
        assertThat(callKeys).as("the call key, on the first slot's tag, not taken for a slot's key").hasSize(1);
        assertThat((Long) redis.command("PTTL", String.valueOf(callKeys.get(0)))).isPositive();
        assertThat(redis.command("ZCARD", LAYOUT.slot("replayed", 6).store())).isEqualTo(1L);
    }

    private static List<SendCall.Result> sendAlone(ScriptRunner scripts, TopicType type, int slot,
                                                   List<SendCall.Message> messages) {
        return Futures.join(scripts.run(LAYOUT.slot("alone", slot), SendCall.of(type, "rmq:wake:alone", slot, 0,
                10_000, false, messages)));
    }


    /**
     * What a slot holds: its store as member → score (a range-merge's due time, of the Redis clock, as a
     * {@link ClockTime}), its bodies' payloads by key, and the members of its expiry index.
     */
    private Map<String, Object> held(String topic, int slot, TopicType type) {
        SlotKeys keys = LAYOUT.slot(topic, slot);
        Map<String, Object> held = new TreeMap<>();
        List<?> store = (List<?>) redis.command("ZRANGE", keys.store(), "0", "-1", "WITHSCORES");
        for (int i = 0; i < store.size(); i += 2) {
            double score = Double.parseDouble(String.valueOf(store.get(i + 1)));
            held.put("store " + store.get(i), type == TopicType.RANGE_MERGE ? ClockTime.of(score) : score);
        }
        for (Object field : (List<?>) redis.command("HKEYS", keys.body())) {
            Envelope envelope = Envelope.decode(redisson.getScript(org.redisson.client.codec.ByteArrayCodec.INSTANCE)
                    .eval(org.redisson.api.RScript.Mode.READ_ONLY, "return redis.call('HGET', KEYS[1], ARGV[1])",
                            org.redisson.api.RScript.ReturnType.VALUE, List.<Object>of(keys.body()),
                            (Object) String.valueOf(field).getBytes(StandardCharsets.UTF_8)));
            held.put("body " + field, new String(envelope.payload(), StandardCharsets.UTF_8));
        }
        held.put("expiry", redis.command("ZRANGE", keys.expiry(), "0", "-1"));
        if (((List<?>) held.get("expiry")).isEmpty()) {
            held.remove("expiry");
        }
        return held;
    }
}
