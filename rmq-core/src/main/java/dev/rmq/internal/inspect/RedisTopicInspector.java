package dev.rmq.internal.inspect;

import dev.rmq.inspect.PeekCursor;
import dev.rmq.inspect.PeekPage;
import dev.rmq.inspect.RmqInspector;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.CountsCall;
import dev.rmq.internal.script.PeekCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.MessageHistory;
import dev.rmq.journal.MessageJournal;
import dev.rmq.journal.NoJournalException;
import dev.rmq.metrics.SlotStats;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.IntToLongFunction;

/**
 * Reads counts and pages with one script call per slot (counts.lua, peek.lua), all of a topic's in one pipeline:
 * one round trip per Redis node. A page of a whole topic reads the first {@code offset + limit} of every slot and
 * merges them in consume order; a cursor's page reads the next {@code limit} of every slot after its offset there.
 */
public final class RedisTopicInspector implements RmqInspector {

    /** How many entries of a slot's retry index counts.lua checks against their envelopes. */
    static final int RETRY_VERIFY_LIMIT = 1000;

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final Function<MessageRef, CompletionStage<Optional<StoredMessage>>> finder;
    /** Where histories come from; null without a journal. */
    private final @Nullable MessageJournal journal;

    /**
     * @param finder finds one message by key (the producer's {@code getAsync})
     */
    public RedisTopicInspector(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                               Function<MessageRef, CompletionStage<Optional<StoredMessage>>> finder,
                               @Nullable MessageJournal journal) {
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.finder = finder;
        this.journal = journal;
    }

    @Override
    public List<MessageHistory> history(String topic, String key) {
        topics.require(topic);
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a history is read by the key of its messages; key was "
                    + (key == null ? "null" : "empty"));
        }
        if (journal == null) {
            throw new NoJournalException("the history of message '" + key + "' of topic '" + topic + "'");
        }
        // the journal keeps payloads as Redis does: shown inflated, and an encrypted one not at all
        return journal.history(topic, key, MAX_HISTORY).stream().map(m -> new MessageHistory(m.topic(), m.key(),
                m.slot(), m.type(), m.score(), m.state(), m.attempts(), m.finished(), m.sentAt(), m.updatedAt(),
                m.headers(), Payloads.shown(m.headers(), m.payload()), m.transitions())).toList();
    }

    // ---- counts ----------------------------------------------------------------------------------------

    @Override
    public TopicCounts counts(String topic) {
        TopicDefinition definition = topics.require(topic);
        List<SlotCounts> slots = countSlots(definition, 0, definition.slotAmount(), RETRY_VERIFY_LIMIT);
        Map<String, SlotCounts> zones = new LinkedHashMap<>();
        for (String zone : definition.zones().names()) {
            zones.put(zone, SlotCounts.sum(slots.stream()
                    .filter(counts -> zone.equals(definition.zones().zoneOf(counts.slot()))).toList()));
        }
        return new TopicCounts(topic, SlotCounts.sum(slots), slots, zones);
    }

    @Override
    public SlotCounts counts(String topic, int slot) {
        TopicDefinition definition = topics.require(topic);
        return countSlots(definition, definition.requireSlot(slot), slot + 1, RETRY_VERIFY_LIMIT).get(0);
    }

    // The metrics' sizes, read on every gauge refresh: they leave out the retrying count, so no envelope is read.

    @Override
    public List<SlotStats> slots(String topic) {
        TopicDefinition definition = topics.require(topic);
        return countSlots(definition, 0, definition.slotAmount(), 0).stream().map(RedisTopicInspector::stats).toList();
    }

    @Override
    public SlotStats slot(String topic, int slot) {
        TopicDefinition definition = topics.require(topic);
        return stats(countSlots(definition, definition.requireSlot(slot), slot + 1, 0).get(0));
    }

    private static SlotStats stats(SlotCounts counts) {
        return new SlotStats(counts.slot(), counts.waiting(), counts.inFlight(), counts.dead(), counts.paused(),
                counts.dueAgeMs());
    }

    /** @param verifyLimit how many retry index entries to check against their envelopes, 0 for none */
    private List<SlotCounts> countSlots(TopicDefinition topic, int from, int to, int verifyLimit) {
        ScriptRunner.Pipeline pipeline = scripts.readPipeline();
        List<CompletableFuture<CountsCall.Counted>> replies = new ArrayList<>(to - from);
        for (int slot = from; slot < to; slot++) {
            replies.add(pipeline.add(keys.slot(topic.name(), slot), new CountsCall(topic.type(), verifyLimit)));
        }
        Futures.join(pipeline.execute());
        List<SlotCounts> counts = new ArrayList<>(to - from);
        for (int i = 0; i < replies.size(); i++) {
            CountsCall.Counted c = Futures.join(replies.get(i));
            counts.add(new SlotCounts(from + i, c.dueNow(), c.later(), c.retrying(), c.parked(), c.inFlight(), c.dead(),
                    c.paused(), c.dueAgeMs(), c.fence()));
        }
        return counts;
    }

    // ---- pages -----------------------------------------------------------------------------------------

    @Override
    public List<StoredMessage> peek(String topic, int offset, int limit) {
        return topicPage(topic, false, offset, limit);
    }

    @Override
    public PeekPage peek(String topic, PeekCursor cursor, int limit) {
        TopicDefinition definition = topics.require(topic);
        if (cursor == null) {
            throw new IllegalArgumentException("cursor must not be null; start with PeekCursor.first() or"
                    + " PeekCursor.newestFirst()");
        }
        checkPage(0, limit, MAX_PAGE);
        if (cursor.slots().stream().anyMatch(slot -> slot >= definition.slotAmount())) {
            throw new IllegalArgumentException("the cursor reads slots that topic '" + topic + "' does not have (it has "
                    + definition.slotAmount() + "): it is a cursor of another topic");
        }
        // each slot's next entries after its offset: the page can only hold what comes first of them, and one more
        // of a slot tells that the slot goes on beyond the page
        List<StoredMessage> all = read(definition, 0, definition.slotAmount(), false, cursor.isNewestFirst(),
                cursor::offset, limit + 1);
        Comparator<StoredMessage> order = consumeOrder(definition.type());
        // a stable sort keeps each slot's own order among equals
        all.sort(cursor.isNewestFirst() ? order.reversed() : order);
        List<StoredMessage> page = all.subList(0, Math.min(limit, all.size()));
        Map<Integer, Integer> taken = new HashMap<>();
        page.forEach(message -> taken.merge(message.slot(), 1, Integer::sum));
        return new PeekPage(page, all.size() <= limit ? null : cursor.advance(taken));
    }

    @Override
    public List<StoredMessage> peek(String topic, int slot, long offset, int limit) {
        return slotPage(topic, slot, false, offset, limit);
    }

    @Override
    public List<StoredMessage> inFlight(String topic, int offset, int limit) {
        return topicPage(topic, true, offset, limit);
    }

    @Override
    public List<StoredMessage> inFlight(String topic, int slot, long offset, int limit) {
        return slotPage(topic, slot, true, offset, limit);
    }

    private List<StoredMessage> slotPage(String topic, int slot, boolean inFlight, long offset, int limit) {
        TopicDefinition definition = topics.require(topic);
        definition.requireSlot(slot);
        checkPage(offset, limit, Long.MAX_VALUE);
        return read(definition, slot, slot + 1, inFlight, false, any -> offset, limit);
    }

    private List<StoredMessage> topicPage(String topic, boolean inFlight, int offset, int limit) {
        TopicDefinition definition = topics.require(topic);
        checkPage(offset, limit, MAX_PAGE);
        List<StoredMessage> all = read(definition, 0, definition.slotAmount(), inFlight, false, any -> 0,
                offset + limit);
        all.sort(inFlight ? Comparator.comparingDouble(StoredMessage::score) : consumeOrder(definition.type()));
        return all.subList(Math.min(offset, all.size()), Math.min(offset + limit, all.size()));
    }

    private static void checkPage(long offset, int limit, long deepest) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be zero or positive, was " + offset);
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE + ", was " + limit);
        }
        if (offset > deepest - limit) {
            throw new IllegalArgumentException("a page of a whole topic reaches at most " + deepest + " deep (offset"
                    + " plus limit), was " + (offset + limit) + "; page through one slot to go further");
        }
    }

    /**
     * The order consumers take waiting messages in: earliest due first; or, on a priority topic, the visible ones by
     * priority, highest first, then the invisible ones (delayed, retrying) by when they become visible.
     */
    private static Comparator<StoredMessage> consumeOrder(TopicType type) {
        if (type.isTimed()) {
            return Comparator.comparingDouble(StoredMessage::score);
        }
        Comparator<StoredMessage> visibleFirst = Comparator.comparing(m -> m.state() != MessageState.WAITING);
        return visibleFirst.thenComparingDouble(m -> m.state() == MessageState.WAITING ? -m.score() : m.score());
    }

    /** Up to {@code limit} entries of each slot in [from, to), from the slot's offset, in one pipeline. */
    private List<StoredMessage> read(TopicDefinition topic, int from, int to, boolean inFlight, boolean newestFirst,
                                     IntToLongFunction offsetOf, int limit) {
        ScriptRunner.Pipeline pipeline = scripts.readPipeline();
        List<CompletableFuture<List<PeekCall.Entry>>> replies = new ArrayList<>(to - from);
        for (int slot = from; slot < to; slot++) {
            replies.add(pipeline.add(keys.slot(topic.name(), slot), new PeekCall(topic.type(), inFlight, newestFirst,
                    offsetOf.applyAsLong(slot), limit)));
        }
        Futures.join(pipeline.execute());
        List<StoredMessage> page = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            for (PeekCall.Entry entry : Futures.join(replies.get(i))) {
                page.add(StoredMessages.of(topic.name(), from + i, entry.key(), entry.state(), entry.score(), entry.envelope(),
                        entry.progress()));
            }
        }
        return page;
    }

    @Override
    public Optional<StoredMessage> find(MessageRef ref) {
        return Futures.join(finder.apply(ref));
    }
}
