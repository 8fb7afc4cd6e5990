package dev.rmq.internal.consumer;

import dev.rmq.events.RmqEvent;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The slots one consumer of a topic holds (a container's worker or a puller), with what holding them reports: a
 * slot assigned or released, a poll that found the slot fenced, what a poll expired and recovered. Thread-safe.
 *
 * @param <S> what the consumer keeps of each slot
 */
public final class SlotTable<S extends HeldSlot> {

    private static final Logger log = LoggerFactory.getLogger(SlotTable.class);

    private final TopicDefinition topic;
    private final String kind;
    private final String id;
    private final RmqMetrics metrics;
    private final ConsumerEvents events;
    private final ConcurrentMap<Integer, S> slots = new ConcurrentHashMap<>();

    /**
     * @param kind what the consumer is, for the logs: {@code worker} or {@code puller}
     * @param id   the consumer's id, as events name it
     */
    public SlotTable(TopicDefinition topic, String kind, String id, RmqMetrics metrics, ConsumerEvents events) {
        this.topic = topic;
        this.kind = kind;
        this.id = id;
        this.metrics = metrics;
        this.events = events;
    }

    public void add(S state) {
        slots.put(state.slot, state);
        events.emit(() -> new RmqEvent.SlotAssigned(Instant.now(), topic.name(), state.slot, id,
                state.isFenced()));
    }

    public S get(int slot) {
        return slots.get(slot);
    }

    /** A live view of every slot held, including those being let go. */
    public Collection<S> all() {
        return slots.values();
    }

    /** The slots held and not being let go. */
    public Set<Integer> owned() {
        Set<Integer> owned = new TreeSet<>();
        slots.forEach((slot, state) -> {
            if (state.revoked == null) {
                owned.add(slot);
            }
        });
        return owned;
    }

    /** Every slot still held, including those being let go. */
    public Set<Integer> held() {
        return new TreeSet<>(slots.keySet());
    }

    /** Lets the slot go: it is no longer held, and whoever waits for its revocation learns so. */
    public void release(S state) {
        boolean removed = slots.remove(state.slot, state);
        state.markRevoked().complete(null);
        if (removed) {
            events.emit(() -> new RmqEvent.SlotReleased(Instant.now(), topic.name(), state.slot, id));
        }
    }

    /** A poll found that another consumer took the slot over: lets it go. */
    public void fencedAtPoll(S state, SlotFencedException e) {
        log.warn("{} {} no longer owns {}: {}", kind, id, state.keys.hashTag(), e.getMessage());
        events.emit(() -> new RmqEvent.SlotFenced(Instant.now(), topic.name(), state.slot, id, "poll", 0));
        release(state);
    }

    /**
     * A poll of the slot failed: puts the next one off, and says so. Redis out of reach is left to the outage watch,
     * which logs it once for the consumer, and a failure while stopping is expected; anything else is a WARN at the
     * first failure in a row and every 20th.
     *
     * @param stopping whether the consumer is stopping
     */
    public void pollFailed(S state, RuntimeException e, boolean stopping) {
        long delayMs = TimeUnit.NANOSECONDS.toMillis(state.backOff());
        if (stopping) {
            log.debug("{} {} failed to poll {} while stopping: {}", kind, id, state.keys.hashTag(), e.toString());
        } else if (e instanceof RmqUnavailableException) {
            log.debug("{} {} could not reach Redis to poll {} ({} time(s) in a row), retrying in {} ms: {}", kind, id,
                    state.keys.hashTag(), state.failures, delayMs, e.toString());
        } else if (state.failures == 1 || state.failures % 20 == 0) {
            log.warn("{} {} failed to poll {} ({} time(s) in a row), retrying in {} ms: {}", kind, id,
                    state.keys.hashTag(), state.failures, delayMs, e.toString());
        }
    }

    /** Counts what a poll of the slot expired, and the leases it recovered; tells of each message it took. */
    public void recordPoll(S state, PrepareCall.Polled polled) {
        state.failures = 0;
        metrics.expired(topic, polled.expired());
        long recovered = polled.recovered();
        metrics.recovered(topic, recovered);
        if (recovered > 0) {
            events.emit(() -> new RmqEvent.LeasesRecovered(Instant.now(), topic.name(), state.slot, id,
                    recovered));
        }
        if (events.active() && !polled.messages().isEmpty()) {
            Instant now = Instant.now();
            boolean taken = topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE;
            for (PrepareCall.Message message : polled.messages()) {
                int attempt = Envelope.attempts(message.envelope());
                events.emit(() -> new RmqEvent.Delivered(now, topic.name(), state.slot, id, message.key(), attempt,
                        taken));
            }
        }
    }
}
