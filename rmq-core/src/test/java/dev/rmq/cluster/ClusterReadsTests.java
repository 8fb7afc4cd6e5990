package dev.rmq.cluster;

import dev.rmq.RmqClient;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.internal.script.SlotHeads;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * rmq's plain reads (a dead queue's size, a pause state, a slot's head, a cancel's mark) answer from the master, as
 * its scripts write there, although the test's client reads from replicas, Redisson's default on a Cluster. The
 * data is written on the masters alone ({@code redis.set_repl(redis.REPL_NONE)}), so a read from a replica would
 * miss it every time, not only when replication lags.
 */
class ClusterReadsTests extends ClusterFixture {

    private static final String ON_MASTER_ONLY =
            "redis.set_repl(redis.REPL_NONE); return redis.call(unpack(ARGV))";

    @Test
    void countsPauseStatesHeadsAndCancelMarksAreReadOnTheMaster() {
        TopicDefinition topic = freshTopic("cluster-reads", TopicType.PRIORITY);
        List<SlotKeys> slots = new ArrayList<>();
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            slots.add(keys);
            onMasterOnly(keys, keys.dead(), "ZADD", keys.dead(), "1", "gone-" + slot);
            onMasterOnly(keys, keys.store(), "ZADD", keys.store(), String.valueOf(100 + slot), "head-" + slot);
            onMasterOnly(keys, keys.cancelled(), "ZADD", keys.cancelled(), "12345", "head-" + slot);
            if (slot % 4 == 0) {
                onMasterOnly(keys, keys.paused(), "SET", keys.paused(), "1");
            }
        }
        // what a replica answers: nothing of it, so every answer below comes from a master
        for (SlotKeys keys : slots) {
            assertThat(redisson.getScoredSortedSet(keys.dead(), StringCodec.INSTANCE).size())
                    .as("dead queue of %s, read from a replica", keys.hashTag()).isZero();
        }

        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        assertThat(rmq.deadQueue().count(topic.name())).isEqualTo(topic.slotAmount());
        assertThat(rmq.deadQueue().count(topic.name(), 3)).isEqualTo(1);
        assertThat(rmq.admin().pauseState(topic.name()).pausedSlots()).isEqualTo(topic.slotAmount() / 4);

        ScriptRunner scripts = new ScriptRunner(redisson);
        List<SlotHeads.Heads> heads = scripts.tops(slots, true, 2).join();
        for (int slot = 0; slot < slots.size(); slot++) {
            assertThat(heads.get(slot).scores()).as("head of slot %d", slot).containsExactly(100L + slot);
            assertThat(heads.get(slot).delayedDueMs()).as("nothing delayed in slot %d", slot).isNull();
            assertThat(scripts.cancelMark(slots.get(slot), "head-" + slot).join()).isEqualTo(12345.0);
        }
    }

    /** Runs {@code command} on the master of {@code keys}' slot without sending it to the replicas. */
    private static void onMasterOnly(SlotKeys keys, String key, String... command) {
        List<String> args = new ArrayList<>(List.of("EVAL", ON_MASTER_ONLY, "1", key));
        args.addAll(List.of(command));
        masterOf(keys).command(args.toArray(String[]::new));
    }
}
