package dev.rmq.internal.redis;

import dev.rmq.topic.TopicDefinition;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Moves what Redis holds under the key names of rmq before its key prefix ({@code orders_3},
 * {@code body{orders_3}}, ...) to the current ones ({@code rmq:{orders_3}}, {@code rmq:body{orders_3}}, ...): one
 * script call per slot (legacy_keys.lua), all slots of a client's topics in one pipeline, before the client's first
 * call to Redis ({@link KeyMigration}). A slot whose old names hold nothing costs one {@code EXISTS}, and no script.
 *
 * <p>Renaming keeps each key on its Redis Cluster node (old and new names share the hash tag), and takes one
 * {@code RENAME} per key whatever the backlog. Messages that a client of an earlier version sends after the first
 * migration move one by one when the client looks again, a minute later. A message whose key the new names already
 * hold stays under the old names, with a WARN that says so.
 */
public final class LegacyKeys {

    private static final Logger log = LoggerFactory.getLogger(LegacyKeys.class);
    /** The most messages one call moves one by one, so that a call never holds Redis for long. */
    static final int MOVES_PER_CALL = 1_000;
    private static final String SCRIPT = load();

    private final RedissonClient redisson;
    private final MasterCommands reads;
    /** What the latest WARN said was left in each slot, by its old store key. */
    private final Map<String, String> warned = new ConcurrentHashMap<>();
    private final KeyLayout legacy;
    private final KeyLayout current;

    /**
     * @param current the client's layout; a layout without a prefix ({@link KeyLayout#LEGACY_PREFIX}) has nothing
     *                to migrate from
     */
    public LegacyKeys(RedissonClient redisson, KeyLayout current) {
        this.redisson = Objects.requireNonNull(redisson, "redisson");
        // not the client's own commands, which wait for this move
        this.reads = new MasterCommands(redisson);
        this.legacy = current.withoutPrefix();
        this.current = current;
    }

    /**
     * What a migration of one topic did.
     *
     * @param waitingLeft, deadLeft, inFlightLeft the messages left under the old names because the new names hold
     *                                            their keys too
     * @param leasedLeft  deliveries left under the old names because their leases still run: their holders, consumers
     *                    of an earlier version, may end them there
     */
    public record Outcome(String topic, long renamed, long moved, long waitingLeft, long deadLeft, long inFlightLeft,
                          long leasedLeft) {
        boolean changed() {
            return renamed > 0 || moved > 0;
        }
    }

    /** Migrates every slot of the topics; see {@link #migrate(List, List)}. */
    public CompletableFuture<List<Outcome>> migrate(Collection<TopicDefinition> topics) {
        return migrate(topics.stream().map(TopicDefinition::name).toList(),
                topics.stream().map(TopicDefinition::slotAmount).toList());
    }

    /**
     * Migrates every slot of the topics, each {@code slotAmounts[i]} slots, and logs what it did: INFO when it
     * moved something, WARN for what it had to leave.
     *
     * @return one outcome per topic, in the order given
     */
    public CompletableFuture<List<Outcome>> migrate(List<String> topics, List<Integer> slotAmounts) {
        if (current.prefix().isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<SlotMove> slots = new ArrayList<>();
        for (int t = 0; t < topics.size(); t++) {
            for (int slot = 0; slot < slotAmounts.get(t); slot++) {
                slots.add(new SlotMove(legacy.slot(topics.get(t), slot), current.slot(topics.get(t), slot)));
            }
        }
        return withOldKeys(slots).thenCompose(this::rounds).thenApply(done -> report(topics, slotAmounts, slots));
    }

    /** One slot's move: its keys under both names, and what the calls so far did and left. */
    private static final class SlotMove {
        final SlotKeys old;
        final SlotKeys now;
        long renamed;
        long moved;
        /** What the latest call left under the old names: the first four are where the next call starts reading. */
        long leftStore;
        long leftDelayed;
        long leftDead;
        long leftPrepare;
        long leftParked;
        long leased;

        SlotMove(SlotKeys old, SlotKeys now) {
            this.old = old;
            this.now = now;
        }

        /** Takes in a call's reply (see legacy_keys.lua); whether a set was read only in part. */
        boolean add(List<Object> reply) {
            renamed += number(reply, 0);
            moved += number(reply, 1);
            leftStore = number(reply, 2);
            leftDelayed = number(reply, 3);
            leftDead = number(reply, 4);
            leftPrepare = number(reply, 5);
            leftParked = number(reply, 6);
            leased = number(reply, 8);
            return number(reply, 7) == 1;
        }

        long waitingLeft() {
            return leftStore + leftDelayed;
        }

        long inFlightLeft() {
            return leftPrepare + leftParked;
        }

        private static long number(List<Object> reply, int index) {
            return ((Number) reply.get(index)).longValue();
        }
    }

    /**
     * The slots whose old names hold a key: one {@code EXISTS} of its 18 old names each, pipelined, read on the
     * masters. Most clients find none, and so run no script at all.
     */
    private CompletableFuture<List<SlotMove>> withOldKeys(List<SlotMove> slots) {
        MasterCommands.Batch batch = reads.batch();
        List<CompletableFuture<Long>> counts = new ArrayList<>();
        for (SlotMove slot : slots) {
            counts.add(batch.countExisting(slot.old.asScriptKeys().stream().map(String.class::cast).toList()));
        }
        return batch.execute().thenApply(done -> {
            List<SlotMove> found = new ArrayList<>();
            for (int i = 0; i < slots.size(); i++) {
                if (counts.get(i).join() > 0) {
                    found.add(slots.get(i));
                }
            }
            return found;
        });
    }

    private CompletableFuture<Void> rounds(List<SlotMove> pending) {
        if (pending.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return round(pending).thenCompose(this::rounds);
    }

    private List<Outcome> report(List<String> topics, List<Integer> slotAmounts, List<SlotMove> slots) {
        List<Outcome> outcomes = new ArrayList<>();
        int at = 0;
        for (int t = 0; t < topics.size(); t++) {
            long renamed = 0;
            long moved = 0;
            long waiting = 0;
            long dead = 0;
            long inFlight = 0;
            long leased = 0;
            for (int slot = 0; slot < slotAmounts.get(t); slot++, at++) {
                SlotMove s = slots.get(at);
                renamed += s.renamed;
                moved += s.moved;
                waiting += s.waitingLeft();
                dead += s.leftDead;
                inFlight += s.inFlightLeft();
                leased += s.leased;
                if (s.waitingLeft() + s.leftDead + s.inFlightLeft() > 0) {
                    warnLeft(s);
                }
            }
            Outcome outcome = new Outcome(topics.get(t), renamed, moved, waiting, dead, inFlight, leased);
            if (outcome.changed()) {
                log.info("topic {}: moved to the key names with the prefix '{}': {} key(s) renamed, {} message(s)"
                        + " moved one by one; {} delivery(ies) still leased under the old names, which move once"
                        + " their leases run out", outcome.topic(), current.prefix(), outcome.renamed(), outcome.moved(),
                        outcome.leasedLeft());
            }
            outcomes.add(outcome);
        }
        return outcomes;
    }

    /** One call for each pending slot, pipelined; yields the slots whose call read a set only in part. */
    private CompletableFuture<List<SlotMove>> round(List<SlotMove> pending) {
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        List<CompletableFuture<List<Object>>> replies = new ArrayList<>();
        for (SlotMove s : pending) {
            List<Object> keys = new ArrayList<>(s.old.asScriptKeys());
            keys.addAll(s.now.asScriptKeys());
            replies.add(batch.getScript(StringCodec.INSTANCE).<List<Object>>evalAsync(s.now.store(),
                    RScript.Mode.READ_WRITE, SCRIPT, RScript.ReturnType.LIST, keys, String.valueOf(MOVES_PER_CALL),
                    String.valueOf(s.leftStore), String.valueOf(s.leftDelayed), String.valueOf(s.leftDead),
                    String.valueOf(s.leftPrepare)).toCompletableFuture());
        }
        return batch.executeAsync().toCompletableFuture().thenApply(done -> {
            List<SlotMove> again = new ArrayList<>();
            for (int r = 0; r < pending.size(); r++) {
                if (pending.get(r).add(replies.get(r).join())) {
                    again.add(pending.get(r));
                }
            }
            return again;
        });
    }

    private void warnLeft(SlotMove s) {
        // a move made again every minute finds the same messages left: said once, and again when that changes
        String left = s.waitingLeft() + "/" + s.leftDead + "/" + s.inFlightLeft();
        if (left.equals(warned.put(s.old.store(), left))) {
            return;
        }
        log.warn("topic {} slot {}: {} waiting, {} dead and {} in-flight or parked message(s) stay under the key"
                        + " names without a prefix ({}, {}, ...): their keys are under the names with the prefix '{}'"
                        + " too. Nothing consumes them there: a client with the empty key prefix can, or they can be"
                        + " deleted. The clients look again every minute and move what they can",
                s.old.topic(), s.old.slot(), s.waitingLeft(), s.leftDead, s.inFlightLeft(), s.old.store(),
                s.old.body(), current.prefix());
    }

    private static String load() {
        try (InputStream in = LegacyKeys.class.getResourceAsStream("legacy_keys.lua")) {
            if (in == null) {
                throw new IllegalStateException("legacy_keys.lua is missing from rmq-core's resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
