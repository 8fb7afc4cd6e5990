package dev.rmq.internal.journal;

import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.RestoreCall;
import dev.rmq.internal.script.RetryPolicy;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.RestoredMessage;
import dev.rmq.journal.RmqRestorer;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The restorer on restore.lua: the messages of one slot go in one pipelined call per {@value #PER_CALL}, every
 * slot's calls in one pipeline. The keys it put back (or ended as expired) are told to {@code lost}: Redis had lost
 * them, so a delivery of one that a consumer of this application still holds is gone.
 */
public final class RedisRestorer implements RmqRestorer {

    /** Keeps one call's Lua work short, so that other clients of the slot are not held up long. */
    static final int PER_CALL = 200;

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final Lost lost;

    /** Told which keys of a topic's slot Redis had lost, once they are back. */
    public interface Lost {
        void restored(String topic, int slot, Set<String> keys);
    }

    public RedisRestorer(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts, Lost lost) {
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.lost = lost;
    }

    @Override
    public List<Outcome> restore(String topicName, List<RestoredMessage> messages) {
        return run(topicName, messages, false);
    }

    @Override
    public List<Outcome> check(String topicName, List<RestoredMessage> messages) {
        return run(topicName, messages, true);
    }

    private List<Outcome> run(String topicName, List<RestoredMessage> messages, boolean dryRun) {
        TopicDefinition topic = topics.require(topicName);
        if (messages == null) {
            throw new IllegalArgumentException("messages must not be null");
        }
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            RestoredMessage message = messages.get(i);
            if (message == null) {
                throw new IllegalArgumentException("messages[" + i + "] is null");
            }
            if (message.slot() < 0 || message.slot() >= topic.slotAmount()) {
                throw new IllegalArgumentException("messages[" + i + "] (key \"" + message.key() + "\") has slot "
                        + message.slot() + ", outside topic " + topic.name() + "'s 0.." + (topic.slotAmount() - 1));
            }
            bySlot.computeIfAbsent(message.slot(), slot -> new ArrayList<>()).add(i);
        }
        Outcome[] outcomes = new Outcome[messages.size()];
        RetryPolicy policy = RetryPolicy.of(topic);
        ScriptRunner.Pipeline pipeline = scripts.pipeline();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        bySlot.forEach((slot, indexes) -> {
            for (int from = 0; from < indexes.size(); from += PER_CALL) {
                List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + PER_CALL));
                List<RestoreCall.Message> rows = new ArrayList<>(chunk.size());
                for (int index : chunk) {
                    RestoredMessage m = messages.get(index);
                    rows.add(new RestoreCall.Message(m.key(), Envelope.encodeStored(m.attempts(), m.score(),
                            m.expireAt(), m.notBefore(), m.lastError(), m.headers(), m.payload())));
                }
                RestoreCall call = new RestoreCall(policy, keys.wakeChannel(topic.name()), slot, topic.fifo(), dryRun,
                        rows);
                calls.add(pipeline.add(keys.slot(topic.name(), slot), call).thenAccept(done -> {
                    for (int i = 0; i < chunk.size(); i++) {
                        outcomes[chunk.get(i)] = done.get(i);
                    }
                }));
            }
        });
        if (!pipeline.isEmpty()) {
            pipeline.execute();
        }
        Futures.join(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)));
        if (dryRun) {
            return Arrays.asList(outcomes);
        }
        bySlot.forEach((slot, indexes) -> {
            Set<String> gone = new HashSet<>();
            for (int index : indexes) {
                if (outcomes[index] != Outcome.PRESENT) {
                    gone.add(messages.get(index).key());
                }
            }
            if (!gone.isEmpty()) {
                lost.restored(topic.name(), slot, gone);
            }
        });
        return Arrays.asList(outcomes);
    }
}
