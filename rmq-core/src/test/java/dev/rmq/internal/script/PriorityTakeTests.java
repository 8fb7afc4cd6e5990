package dev.rmq.internal.script;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A priority poll of up to four messages pops them, a larger one reads them and removes them by rank. Either way
 * each is delivered with the latest priority sent or set for it, which the store's score holds (a waiting message's
 * envelope does not: the take writes it there), and the head left after the take is the one the consumer is told of.
 */
class PriorityTakeTests extends StandaloneRedisTest {

    private static final TopicDefinition TASKS = TopicDefinition.builder("take-tasks", TopicType.PRIORITY).slotAmount(1)
            .build();

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 5, 6, 10})
    void aPollDeliversTheLatestPriorityOfEachMessageAndNamesTheHeadItLeaves(int batch) {
        RmqClient rmq = RmqClient.builder(redisson).topic(TASKS).build();
        // merged into a lower priority, set higher by key, and sent once
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "a", 100).withKey("a"));
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "a", 20).withKey("a"));
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "b", 50).withKey("b"));
        assertThat(rmq.producer().reprioritize(MessageRef.of(TASKS.name(), "b"), 99)).isTrue();
        for (int i = 0; i < 4; i++) {
            rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "m" + i, 60 + i).withKey("m" + i));
        }
        // in priority order: b 99, m3 63, m2 62, m1 61, m0 60, a 20
        List<String> keys = List.of("b", "m3", "m2", "m1", "m0", "a");
        List<Long> priorities = List.of(99L, 63L, 62L, 61L, 60L, 20L);

        PrepareCall poll = new PrepareCall(RetryPolicy.of(TASKS), batch, 30_000, "", 1000, 100, false, null);
        PrepareCall.Polled polled = Futures.join(new ScriptRunner(redisson).run(new KeyLayout("").slot(TASKS.name(), 0), poll));

        int taken = Math.min(batch, keys.size());
        List<String> gotKeys = new ArrayList<>();
        List<Long> gotPriorities = new ArrayList<>();
        for (PrepareCall.Message message : polled.messages()) {
            Envelope envelope = Envelope.decode(message.envelope());
            gotKeys.add(message.key());
            gotPriorities.add((long) envelope.score());
            assertThat(envelope.deliveredAttempt()).as("the attempt the delivery counts").isEqualTo(1);
        }
        assertThat(gotKeys).isEqualTo(keys.subList(0, taken));
        assertThat(gotPriorities).isEqualTo(priorities.subList(0, taken));
        assertThat(polled.next()).as("the most urgent message left").isEqualTo(taken < keys.size() ? priorities.get(taken) : null);
        if (taken < keys.size()) {
            assertThat(polled.waitMicros()).as("more is due at once").isZero();
        } else {
            assertThat(polled.waitMicros()).as("nothing is left, so the next poll is planned ahead").isPositive();
        }
        assertThat(redis.command("ZCARD", "rmq:{take-tasks_0}")).isEqualTo((long) (keys.size() - taken));
        assertThat(redis.command("HLEN", "rmq:inflight{take-tasks_0}")).isEqualTo((long) taken);
    }

    /**
     * A poll of six or more makes its lease set a skiplist and, where its envelopes are short, its in-flight hash a
     * hash table, by a member it adds and removes in the same call: only the leases and envelopes are left.
     */
    @ParameterizedTest
    @ValueSource(ints = {5, 6, 8})
    void aPollOfSixOrMoreLeavesItsLeasesOutOfAListpackAndNothingElseBesideThem(int batch) {
        RmqClient rmq = RmqClient.builder(redisson).topic(TASKS).build();
        List<OutgoingMessage> sends = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            sends.add(OutgoingMessage.priority(TASKS.name(), "m" + i, 60 + i).withKey("m" + i));
        }
        rmq.producer().sendAll(sends);

        PrepareCall poll = new PrepareCall(RetryPolicy.of(TASKS), batch, 30_000, "", 1000, 100, false, null);
        PrepareCall.Polled polled = Futures.join(new ScriptRunner(redisson).run(new KeyLayout("").slot(TASKS.name(), 0), poll));

        assertThat(polled.messages()).hasSize(batch);
        List<String> taken = polled.messages().stream().map(PrepareCall.Message::key).toList();
        assertThat(redis.command("ZRANGE", "rmq:prepare{take-tasks_0}", "0", "-1")).asList()
                .containsExactlyInAnyOrderElementsOf(taken);
        assertThat(redis.command("HKEYS", "rmq:inflight{take-tasks_0}")).asList()
                .containsExactlyInAnyOrderElementsOf(taken);
        Object leases = redis.command("OBJECT", "ENCODING", "rmq:prepare{take-tasks_0}");
        Object envelopes = redis.command("OBJECT", "ENCODING", "rmq:inflight{take-tasks_0}");
        if (batch >= 6) {
            assertThat(leases).isEqualTo("skiplist");
            assertThat(envelopes).isEqualTo("hashtable");
        } else {
            // listpack, or ziplist on Redis 6.2
            assertThat(leases).isNotEqualTo("skiplist");
            assertThat(envelopes).isNotEqualTo("hashtable");
        }
    }
}
