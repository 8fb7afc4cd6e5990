package dev.rmq.internal.script;

import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.internal.redis.MasterCommands;
import dev.rmq.internal.redis.SlotKeys;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The plain reads of the slots' heads that a consumer orders its slots by: a script call's fixed cost would be many
 * times that of the read. They go to the masters, as the scripts do, so they see what the scripts just wrote.
 */
public final class SlotHeads {

    /**
     * A slot's head as read: the scores of its most urgent waiting messages, most urgent first, and on a priority
     * topic when its earliest delayed message comes due (epoch ms by the Redis clock; null when none is delayed, or
     * on a time-based topic). No send tells the consumer when that one comes due, and it may be more urgent.
     */
    public record Heads(List<Long> scores, @Nullable Long delayedDueMs) {
    }

    private final MasterCommands master;

    SlotHeads(MasterCommands master) {
        this.master = master;
    }

    /**
     * The scores of the {@code n} most urgent waiting messages of each slot, most urgent first (the store's highest
     * when {@code highest}, on a priority topic, else its lowest), read in one round trip per Redis node. A slot read
     * so must also have its wake key say what its consumer now counts on (see wake_if_earlier in lib.lua), or a send
     * of a more urgent message would not tell it, and it would take another slot's message first. Where the key does
     * not name the message read or a less urgent one (it holds a planned poll, or nothing), it is set, and the slot
     * read again after it, in a second round trip: a send before the key was set is in that second read, and a send
     * after it tells the consumer. A wake-up leaves the key saying what woke it, so the read of a woken slot needs
     * one round trip. A wake-up that overtakes a read makes the consumer drop what it read (see PollTiming).
     */
    CompletableFuture<List<Heads>> tops(List<SlotKeys> slots, boolean highest, int n) {
        MasterCommands.Batch first = master.batch();
        List<CompletableFuture<List<Long>>> reads = new ArrayList<>(slots.size());
        List<CompletableFuture<@Nullable String>> marks = new ArrayList<>(slots.size());
        // a priority topic's delayed heads: a message there does not move among the others until a poll of its slot
        List<@Nullable CompletableFuture<List<Double>>> delayed = new ArrayList<>(slots.size());
        for (SlotKeys keys : slots) {
            reads.add(top(first, keys, highest, n));
            marks.add(first.get(keys.wake()));
            delayed.add(highest ? first.scores(keys.delayed(), false, 1) : null);
        }
        return first.execute().thenCompose(done -> {
            List<List<Long>> tops = new ArrayList<>(slots.size());
            MasterCommands.Batch second = master.batch();
            List<CompletableFuture<List<Long>>> again = new ArrayList<>(slots.size());
            for (int i = 0; i < slots.size(); i++) {
                List<Long> top = reads.get(i).join();
                tops.add(top);
                // an empty slot needs no key: it is polled next, and its poll writes one
                if (!top.isEmpty() && !counts(marks.get(i).join(), top.get(0), highest)) {
                    second.set(slots.get(i).wake(), (highest ? "p" : "d") + top.get(0));
                    again.add(top(second, slots.get(i), highest, n));
                    if (highest) {
                        // a send into delayed before the key was set woke no one: read after it, as the head is
                        delayed.set(i, second.scores(slots.get(i).delayed(), false, 1));
                    }
                } else {
                    again.add(null);
                }
            }
            if (again.stream().allMatch(Objects::isNull)) {
                return CompletableFuture.completedFuture(heads(tops, delayed));
            }
            return second.execute().thenApply(written -> {
                for (int i = 0; i < tops.size(); i++) {
                    if (again.get(i) != null) {
                        tops.set(i, again.get(i).join());
                    }
                }
                return heads(tops, delayed);
            });
        });
    }

    /**
     * The priorities of each slot's delayed messages due by {@code nowMs} (epoch ms), up to {@code n} a slot, the
     * earliest due first; empty for a slot with none. Only a poll moves them among the waiting messages, where they
     * may be more urgent than any a read of those ranks. Two round trips: the keys, then their envelopes; a message
     * gone meanwhile, or one this version cannot read, is left out.
     */
    CompletableFuture<List<List<Long>>> duePriorities(List<SlotKeys> slots, long nowMs, int n) {
        MasterCommands.Batch first = master.batch();
        List<CompletableFuture<List<String>>> keys = new ArrayList<>(slots.size());
        for (SlotKeys slot : slots) {
            keys.add(first.membersUpTo(slot.delayed(), nowMs, n));
        }
        return first.execute().thenCompose(done -> {
            MasterCommands.Batch second = master.batch();
            List<@Nullable CompletableFuture<List<byte @Nullable []>>> bodies = new ArrayList<>(slots.size());
            for (int i = 0; i < slots.size(); i++) {
                List<String> due = keys.get(i).join();
                bodies.add(due.isEmpty() ? null : second.hashBytes(slots.get(i).body(), due));
            }
            CompletableFuture<Void> read = bodies.stream().allMatch(Objects::isNull)
                    ? CompletableFuture.completedFuture(null) : second.execute();
            return read.thenApply(ready -> {
                List<List<Long>> priorities = new ArrayList<>(slots.size());
                for (CompletableFuture<List<byte @Nullable []>> slotBodies : bodies) {
                    List<Long> found = new ArrayList<>();
                    for (byte[] raw : slotBodies == null ? List.<byte[]>of() : slotBodies.join()) {
                        if (raw != null) {
                            try {
                                found.add((long) Envelope.decode(raw).score());
                            } catch (MalformedEnvelopeException e) {
                                // its consumer sends it dead; it ranks nowhere
                            }
                        }
                    }
                    priorities.add(found);
                }
                return priorities;
            });
        });
    }

    private static List<Heads> heads(List<List<Long>> tops, List<@Nullable CompletableFuture<List<Double>>> delayed) {
        List<Heads> heads = new ArrayList<>(tops.size());
        for (int i = 0; i < tops.size(); i++) {
            CompletableFuture<List<Double>> due = delayed.get(i);
            List<Double> earliest = due == null ? List.of() : due.join();
            heads.add(new Heads(tops.get(i), earliest.isEmpty() ? null : earliest.get(0).longValue()));
        }
        return heads;
    }

    private static CompletableFuture<List<Long>> top(MasterCommands.Batch batch, SlotKeys keys, boolean highest,
                                                     int n) {
        return batch.scores(keys.store(), highest, n)
                .thenApply(scores -> scores.stream().map(Double::longValue).toList());
    }

    /**
     * Whether a slot's wake key already tells its consumer of any message more urgent than {@code head}: a priority
     * above it ({@code highest}), or a due time before it. An idle consumer's planned poll does not: the key expires
     * an idle poll after it, while the head read stands until a wake-up.
     */
    private static boolean counts(@Nullable String wake, long head, boolean highest) {
        if (wake == null || wake.isEmpty() || wake.charAt(0) != (highest ? 'p' : 'd')) {
            return false;
        }
        double known = Double.parseDouble(wake.substring(1));
        return highest ? known <= head : known >= head;
    }
}
