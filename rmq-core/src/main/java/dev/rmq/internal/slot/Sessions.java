package dev.rmq.internal.slot;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.codec.PayloadCodecException;
import dev.rmq.codec.UndecryptablePayloadException;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.events.RmqEvent;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.journal.MessageJournal;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The slot sessions of one consumer of a topic (a container's worker, or a puller's topic), with what they share:
 * the script calls, the rate gate, the decoder, the guarantee, and the reporting of what holding slots does (a slot
 * assigned, let go or taken over, a poll that failed, what a poll expired and recovered, each ending's outcome).
 * Thread-safe.
 *
 * @param <T> the payload type
 */
public final class Sessions<T> {

    private static final Logger log = LoggerFactory.getLogger(Sessions.class);
    /** The most recovered keys one log line names: a dead consumer's leases run out in a burst. */
    private static final int RECOVERIES_NAMED = 5;

    /** Makes a driver's delivery of one polled message. */
    public interface DeliveryMaker<T> {
        Delivery<T> make(SlotSession<T> session, String key, Envelope envelope, byte[] raw, T payload, long token,
                         long leaseEndsNanos);
    }

    /**
     * What one consumer's sessions are made of.
     *
     * @param kind         what the consumer is, for the logs: {@code worker} or {@code puller}
     * @param id           the consumer's id, as events name it
     * @param logsFailures whether a failed ending is logged (a handler's failure), or left to the program that chose
     *                     it (a puller's); a message an at-most-once failure loses is logged either way
     * @param stopping     whether the consumer is stopping: failures are then expected, counted and not logged
     */
    public record Parts<T>(TopicDefinition topic, String kind, String id, KeyLayout keys, SlotCalls calls, RateGate rate,
                           Payloads payloads, Type payloadType, RmqMetrics metrics, ConsumerEvents events,
                           HandlerFailures failures, boolean logsFailures, DeliveryMaker<T> deliveries,
                           BooleanSupplier stopping) {
    }

    private final Parts<T> parts;
    private final Guarantee guarantee;
    private final ConcurrentMap<Integer, SlotSession<T>> sessions = new ConcurrentHashMap<>();
    /** Deliveries whose ending did not reach Redis while the consumer stopped: left to lease recovery. */
    private final AtomicInteger leftToLeases = new AtomicInteger();
    /** Told when deliveries of a session have ended. */
    private volatile Consumer<SlotSession<T>> onEnded = session -> { };

    public Sessions(Parts<T> parts) {
        this.parts = parts;
        this.guarantee = Guarantee.of(parts.topic().delivery());
    }

    /** Asks to be told when deliveries of a session have ended: a driver lets a revoked slot go then. */
    public void onEnded(Consumer<SlotSession<T>> listener) {
        this.onEnded = listener;
    }

    // ---- the table -----------------------------------------------------------------------------------------

    /** Opens the session of a slot just assigned. */
    public SlotSession<T> open(int slot, String fencingToken, Duration holdOff) {
        SlotSession<T> session = new SlotSession<>(this, slot, parts.keys().slot(topic().name(), slot), fencingToken,
                System.nanoTime() + holdOff.toNanos());
        sessions.put(slot, session);
        events().emit(() -> new RmqEvent.SlotAssigned(Instant.now(), topic().name(), slot, id(), session.isFenced()));
        return session;
    }

    /** The session of a slot held, or null when it is not. */
    public @Nullable SlotSession<T> get(int slot) {
        return sessions.get(slot);
    }

    /** A live view of every session, including those being let go. */
    public Collection<SlotSession<T>> all() {
        return sessions.values();
    }

    /** The slots held and not being let go. */
    public Set<Integer> owned() {
        Set<Integer> owned = new TreeSet<>();
        sessions.forEach((slot, session) -> {
            if (!session.revoking()) {
                owned.add(slot);
            }
        });
        return owned;
    }

    /** Every slot still held, including those being let go. */
    public Set<Integer> held() {
        return new TreeSet<>(sessions.keySet());
    }

    /** Lets the slot go: it is no longer held, and whoever waits for its revocation learns so. */
    public void release(SlotSession<T> session) {
        boolean removed = sessions.remove(session.slot, session);
        session.markRevoked().complete(null);
        if (removed) {
            events().emit(() -> new RmqEvent.SlotReleased(Instant.now(), topic().name(), session.slot, id()));
        }
    }

    /** Deliveries whose ending did not reach Redis while the consumer stopped. */
    public int leftToLeases() {
        return leftToLeases.get();
    }

    /** Counts deliveries a stopping consumer leaves to lease recovery. */
    public void leftToLeases(int deliveries) {
        leftToLeases.addAndGet(deliveries);
    }

    // ---- what the sessions share ------------------------------------------------------------------------------

    public TopicDefinition topic() {
        return parts.topic();
    }

    String kind() {
        return parts.kind();
    }

    String id() {
        return parts.id();
    }

    /** The polls of one pass over {@code due}, sessions of this consumer whose time to poll has come. */
    public List<SlotChoice.Pick<T>> plan(List<SlotSession<T>> due) {
        return SlotChoice.plan(due, parts.calls());
    }

    /** The polls of one pull of up to {@code want} messages from {@code due}; see {@link SlotChoice#top}. */
    public @Nullable List<SlotChoice.Pick<T>> top(List<SlotSession<T>> due, int want) {
        return SlotChoice.top(due, want, parts.calls());
    }

    SlotCalls calls() {
        return parts.calls();
    }

    RateGate rate() {
        return parts.rate();
    }

    RmqMetrics metrics() {
        return parts.metrics();
    }

    ConsumerEvents events() {
        return parts.events();
    }

    HandlerFailures failures() {
        return parts.failures();
    }

    boolean logsFailures() {
        return parts.logsFailures();
    }

    /**
     * Decodes a polled message into the driver's delivery.
     *
     * @throws dev.rmq.internal.redis.MalformedEnvelopeException when its envelope cannot be read
     * @throws dev.rmq.codec.PayloadCodecException              when its payload cannot be
     */
    @SuppressWarnings("unchecked")
    Delivery<T> decode(SlotSession<T> session, PrepareCall.Message message, long token, long leaseEndsNanos) {
        Envelope stored = Envelope.decode(message.envelope());
        T payload = (T) parts.payloads().decode(parts.topic(), message.key(), stored.headers(), stored.payload(),
                parts.payloadType());
        // the handler sees the message's own headers, not those that say how its payload was stored
        Map<String, String> headers = Payloads.delivered(stored.headers());
        Envelope envelope = headers == stored.headers() ? stored : new Envelope(stored.attempts(), stored.score(),
                stored.expireAt(), stored.notBefore(), stored.releases(), stored.lastError(), stored.deadReason(),
                headers, stored.payload());
        return parts.deliveries().make(session, message.key(), envelope, message.envelope(), payload, token,
                leaseEndsNanos);
    }

    Guarantee guarantee() {
        return guarantee;
    }

    Logger log() {
        return log;
    }

    // ---- reporting -----------------------------------------------------------------------------------------

    /**
     * The deliveries of a poll's messages, decoded. A message that cannot be decoded goes to the dead queue at once;
     * failing that, its lease recovers it.
     */
    List<Delivery<T>> decodeAll(SlotSession<T> session, PrepareCall.Polled polled, long leaseEndsNanos) {
        List<Delivery<T>> deliveries = new ArrayList<>(polled.messages().size());
        List<Ending> undecodable = new ArrayList<>();
        for (PrepareCall.Message message : polled.messages()) {
            try {
                deliveries.add(decode(session, message, polled.token(), leaseEndsNanos));
            } catch (UndecryptablePayloadException e) {
                undecodable.add(Ending.undecryptable(message.key(), polled.token(), "cannot decrypt: " + e.getMessage()));
            } catch (MalformedEnvelopeException | PayloadCodecException e) {
                undecodable.add(Ending.undecodable(message.key(), polled.token(), "cannot decode: " + e.getMessage()));
            } catch (RuntimeException e) {
                // a codec of the application's that fails otherwise than its contract says: the message cannot be
                // read all the same, and would fail the same way every time
                undecodable.add(Ending.undecodable(message.key(), polled.token(), "cannot decode: " + e));
            }
        }
        if (!undecodable.isEmpty()) {
            bury(session, undecodable);
        }
        return deliveries;
    }

    private void bury(SlotSession<T> session, List<Ending> undecodable) {
        try {
            session.end(undecodable);
        } catch (RuntimeException e) {
            log.warn("{} {}: could not bury {} undecodable message(s) of {}; their leases will recover them: {}",
                    kind(), id(), undecodable.size(), session.keys.hashTag(), e.toString());
        }
    }

    /**
     * A poll found that another consumer took the slot over: lets it go. The {@code endings} it carried are left to
     * their leases.
     */
    void fencedAtPoll(SlotSession<T> session, SlotFencedException e, int endings) {
        log.warn("{} {} no longer owns {}: {}", kind(), id(), session.keys.hashTag(), e.getMessage());
        events().emit(() -> new RmqEvent.SlotFenced(Instant.now(), topic().name(), session.slot, id(), "poll",
                endings));
        release(session);
    }

    /** An ending or an extension found that another consumer took the slot over. */
    void fenced(SlotSession<?> session, String during, int messages) {
        log.warn("{} {} lost {} with {} message(s) not ended; they are redelivered once their leases run out",
                kind(), id(), session.keys.hashTag(), messages);
        events().emit(() -> new RmqEvent.SlotFenced(Instant.now(), topic().name(), session.slot, id(), during,
                messages));
    }

    /**
     * A poll of the slot failed: puts the next one off, and says so. Redis out of reach is left to the outage watch,
     * which logs it once for the consumer, and a failure while stopping is expected; anything else is a WARN at the
     * first failure in a row and every 20th.
     */
    void pollFailed(SlotSession<T> session, RuntimeException e) {
        long delayMs = TimeUnit.NANOSECONDS.toMillis(session.timing().backOff());
        int failures = session.timing().failuresInARow();
        if (parts.stopping().getAsBoolean()) {
            log.debug("{} {} failed to poll {} while stopping: {}", kind(), id(), session.keys.hashTag(), e.toString());
        } else if (e instanceof RmqUnavailableException) {
            log.debug("{} {} could not reach Redis to poll {} ({} time(s) in a row), retrying in {} ms: {}", kind(),
                    id(), session.keys.hashTag(), failures, delayMs, e.toString());
        } else if (failures == 1 || failures % 20 == 0) {
            log.warn("{} {} failed to poll {} ({} time(s) in a row), retrying in {} ms: {}", kind(), id(),
                    session.keys.hashTag(), failures, delayMs, e.toString());
        }
    }

    /** Counts what a poll of the slot expired, and the leases it recovered; tells of each message it took. */
    void recordPoll(SlotSession<T> session, PrepareCall.Polled polled) {
        metrics().expired(topic(), polled.expired());
        List<PrepareCall.Recovered> recovered = polled.recovered();
        metrics().recovered(topic(), recovered.size());
        if (!recovered.isEmpty()) {
            leasesRecovered(session, recovered);
        }
        if (events().active() && !polled.messages().isEmpty()) {
            Instant now = Instant.now();
            boolean taken = !guarantee.leased();
            for (PrepareCall.Message message : polled.messages()) {
                int attempt = Envelope.deliveredAttempt(message.envelope());
                String sendId = Envelope.header(message.envelope(), MessageJournal.SEND_ID_HEADER);
                events().emit(() -> new RmqEvent.Delivered(now, topic().name(), session.slot, id(), message.key(),
                        attempt, taken, sendId));
            }
        }
    }

    /**
     * Deliveries whose lease ran out, which a poll ended: one line for the poll, naming the first few keys and what
     * became of each, since a consumer died, hung or lost Redis while it held them. INFO, as a refused ack is: the
     * failure behind it (a dead process, an outage) has its own line.
     */
    private void leasesRecovered(SlotSession<T> session, List<PrepareCall.Recovered> recovered) {
        StringBuilder what = new StringBuilder();
        for (int i = 0; i < Math.min(RECOVERIES_NAMED, recovered.size()); i++) {
            PrepareCall.Recovered one = recovered.get(i);
            what.append(i == 0 ? "" : ", ").append('\'').append(one.key()).append("' ").append(switch (one.outcome()) {
                case RETRY -> "retried after its backoff";
                case DEAD -> "dead, its attempts spent";
                case EXPIRED -> "expired";
                case MERGED -> "replaced by a newer send of its key";
                default -> "already gone";
            });
        }
        if (recovered.size() > RECOVERIES_NAMED) {
            what.append(" and ").append(recovered.size() - RECOVERIES_NAMED).append(" more");
        }
        log.info("{} {} recovered {} delivery(ies) of {} in {} whose lease ran out before they were acknowledged: {}",
                kind(), id(), recovered.size(), topic().name(), session.keys.hashTag(), what);
        Instant now = Instant.now();
        events().emit(() -> new RmqEvent.LeasesRecovered(now, topic().name(), session.slot, id(),
                recovered.stream().map(r -> new RmqEvent.RecoveredLease(r.key(), r.outcome())).toList()));
    }

    /** One ending's outcome in Redis. */
    void acknowledged(SlotSession<?> session, String key, AckOutcome outcome, String reason) {
        metrics().acknowledged(topic(), outcome);
        if (outcome == AckOutcome.STALE) {
            log.info("{} {}: the lease of '{}' in {} ran out before its ack; it is redelivered", kind(), id(),
                    key, session.keys.hashTag());
        } else if (outcome == AckOutcome.CANCELLED) {
            log.info("{} {}: '{}' in {} was cancelled while in flight; its ending changed nothing", kind(), id(),
                    key, session.keys.hashTag());
        }
        events().emit(() -> new RmqEvent.Acknowledged(Instant.now(), topic().name(), session.slot, id(), key,
                outcome, reason));
    }

    /** Gathered endings that did not reach Redis: their leases recover the messages. */
    void endingFailed(SlotSession<?> session, List<Ending> sent, RuntimeException e) {
        if (parts.stopping().getAsBoolean()) {
            leftToLeases(sent.size());
            log.debug("{} {} could not acknowledge {} message(s) of {} while stopping: {}", kind(), id(), sent.size(),
                    session.keys.hashTag(), e.toString());
        } else {
            log.warn("{} {} could not acknowledge {} message(s) of {}; their leases will recover them: {}", kind(),
                    id(), sent.size(), session.keys.hashTag(), e.toString());
        }
        events().emit(() -> new RmqEvent.AckFailed(Instant.now(), topic().name(), session.slot, id(),
                sent.stream().map(Ending::key).toList(), e.toString()));
    }

    /** At most once: a batch outlived its deadline with messages not started, which go back to waiting. */
    void outlivedHold(SlotSession<?> session, int unstarted) {
        log.warn("{} {}: the deadline of an at-most-once batch of {} passed unrenewed (the process was paused, or"
                + " Redis did not answer) with {} message(s) not started; they go back to waiting, as another"
                + " consumer may take the slot over from now on", kind(), id(), session.keys.hashTag(), unstarted);
    }

    /** An extension of leases that failed: they run as before. */
    void renewalFailed(SlotSession<?> session, RuntimeException e) {
        if (parts.stopping().getAsBoolean()) {
            log.debug("{} {} could not extend leases in {} while stopping: {}", kind(), id(), session.keys.hashTag(),
                    e.toString());
        } else {
            log.warn("{} {} could not extend leases in {}: {}", kind(), id(), session.keys.hashTag(), e.toString());
        }
    }

    void ended(SlotSession<T> session) {
        onEnded.accept(session);
    }
}
