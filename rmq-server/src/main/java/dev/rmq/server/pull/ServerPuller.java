package dev.rmq.server.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.exceptions.RmqException;
import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.consumer.Progress;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.pull.Settlement;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import tools.jackson.databind.JsonNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The server's one puller over every configured topic, and the tokens of the messages it handed to clients. A
 * client pulls, gets each message with a token, and settles it by token; the message itself stays here, so a
 * client needs nothing but the token. A token this server does not hold may name a delivery of another server
 * ({@link DeliveryTokens}): with the key they share, it is settled through Redis by its reference, and that server
 * is told. A token neither held nor signed with the key (never issued, forged, another cluster's) is refused with
 * nothing done, as is one whose delivery was settled or whose lease ran out.
 *
 * <p>It stops before the web server's graceful shutdown: closing the puller ends the pulls that wait, so that
 * they do not hold the shutdown up, and hands back unstarted every message that clients did not settle. A puller
 * starts once, so each start builds a new one: a context that is stopped and started again (as a test framework
 * pauses a cached one) serves again.
 */
public final class ServerPuller implements SmartLifecycle, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerPuller.class);

    private final Supplier<RmqPuller<JsonNode>> pullers;
    private final Set<String> topicNames;
    private final TopicRegistry topics;
    private final Duration maxWait;
    private final Clock clock;
    private final Deliveries deliveries;
    private final DeliveryTokens tokens;
    private volatile boolean running;
    /** Null until the first start; a stop closes it but leaves it here. */
    private volatile @Nullable RmqPuller<JsonNode> puller;

    /**
     * @param pullers builds a puller over every topic of {@code topics}, not started
     * @param tokens  signs and reads the tokens of deliveries under lease
     */
    public ServerPuller(Supplier<RmqPuller<JsonNode>> pullers, TopicRegistry topics, Duration maxWait, Clock clock,
                        DeliveryTokens tokens) {
        this.tokens = tokens;
        this.pullers = pullers;
        this.topicNames = topics.all().stream().map(TopicDefinition::name)
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
        this.topics = topics;
        this.maxWait = maxWait;
        this.clock = clock;
        this.deliveries = new Deliveries(clock);
    }

    /** The longest a pull may wait for its first message. */
    public Duration maxWait() {
        return maxWait;
    }

    /** The most messages one pull may ask for. */
    public int maxCount() {
        return RmqPuller.MAX_COUNT;
    }

    public Set<String> topics() {
        return topicNames;
    }

    /** The slots of each topic the puller holds now; with ZooKeeper, those assigned to this server. */
    public Map<String, Set<Integer>> ownedSlots() {
        RmqPuller<JsonNode> current = puller;
        return current == null ? Map.of() : current.ownedSlots();
    }

    /** How many pulled messages wait for their client to settle them. */
    public int held() {
        return deliveries.size();
    }

    /**
     * Up to {@code count} due messages of the given topics (all when empty), each under a new token; when none is
     * due, waits up to {@code timeout} for the first.
     *
     * @throws PullerUnavailableException while the server starts or stops
     */
    public List<Delivery> pull(int count, Duration timeout, List<String> names) {
        requireRunning();
        List<PulledMessage<JsonNode>> got;
        try {
            got = startedPuller().poll(count, timeout, names.toArray(String[]::new));
        } catch (IllegalStateException e) {
            throw new PullerUnavailableException("the server is stopping and takes no more messages: " + e.getMessage());
        }
        List<Delivery> handed = new ArrayList<>(got.size());
        for (PulledMessage<JsonNode> message : got) {
            Instant fixedDeadline = fixedDeadlineOf(message);
            String token = fixedDeadline == null ? tokens.issue(message.ref()) : tokens.random();
            handed.add(deliveries.add(token, message, fixedDeadline));
        }
        return handed;
    }

    /**
     * Ends the message of a token: the token is withdrawn first, so that of two requests that settle one message
     * only one reaches Redis.
     *
     * @throws UnknownDeliveryException for a token neither held nor signed with the key
     * @throws LeaseExpiredException    when the lease ran out first, or another request settled it: nothing was done
     */
    public AckOutcome settle(String token, Settlement how, @Nullable String reason) {
        if (how.failure() && (reason == null || reason.isBlank())) {
            throw new IllegalArgumentException("a " + how.name().toLowerCase().replace('_', '-') + " needs a reason,"
                    + " which the next attempt and the dead queue show; it was " + (reason == null ? "missing" : "blank"));
        }
        Delivery delivery = deliveries.take(token);
        if (delivery == null) {
            requireRunning();
            return startedPuller().settle(elsewhere(token), how, reason);
        }
        PulledMessage<JsonNode> message = delivery.message();
        // when Redis does not answer, the message counts as ended here: the client's retry settles it by its token in
        // Redis, as another server would, and Redis's lease decides
        try {
            return switch (how) {
                case ACK -> message.ack();
                case RETRY -> message.retry(given(reason));
                case RETRY_NOW -> message.retryNow(given(reason));
                case DEAD -> message.dead(given(reason));
                case RELEASE -> message.release();
            };
        } catch (IllegalStateException e) {
            // ended already: handed back by a stop of the puller
            throw new UnknownDeliveryException("the message of this token was already ended (" + e.getMessage()
                    + "); nothing was done");
        }
    }

    /**
     * Extends the lease of a token's message to {@code duration} from now, by the Redis clock.
     *
     * @return the new token, which names the new lease deadline, and that deadline. Any server settles the
     *         delivery by the new token; the one it replaces still works here, where the delivery is held, and
     *         nowhere else, until the next extension
     */
    public Extended extend(String token, Duration duration) {
        return onLease(token, "extend", true, ref -> startedPuller().extend(ref, duration),
                message -> message.extend(duration));
    }

    /**
     * Records the progress of a token's delivery, and extends its lease unless {@code extendLease} is null; the
     * token stays the same when the lease does.
     */
    public Extended reportProgress(String token, int percent, String note, @Nullable Duration extendLease) {
        Progress.check(percent, note);
        return onLease(token, "record progress on", extendLease != null,
                ref -> startedPuller().reportProgress(ref, percent, note, extendLease),
                message -> message.reportProgress(percent, note, extendLease));
    }

    /**
     * Runs a call on the lease of a token's delivery: {@code held} when this server handed it out, {@code elsewhere}
     * when another did. {@code what} the call does, for the messages; {@code moves} whether it moves the lease, and
     * so issues a new token.
     */
    private Extended onLease(String token, String what, boolean moves, Function<DeliveryRef, DeliveryRef> elsewhere,
                             Consumer<PulledMessage<JsonNode>> held) {
        Delivery delivery = deliveries.find(token);
        if (delivery == null) {
            try {
                requireRunning();
                DeliveryRef after = elsewhere.apply(elsewhere(token));
                return new Extended(moves ? tokens.issue(after) : token, after.leaseDeadline());
            } catch (MessageCancelledException e) {
                throw new UnknownDeliveryException(e.getMessage() + "; settle the token to end it");
            }
        }
        if (delivery.fixedDeadline() != null) {
            throw new IllegalArgumentException("message '" + delivery.message().key() + "' of topic '"
                    + delivery.message().topic() + "' was delivered at most once: it left Redis when it was pulled,"
                    + " and has no lease to " + what);
        }
        try {
            held.accept(delivery.message());
        } catch (LeaseExpiredException e) {
            deliveries.forget(delivery);
            throw e;
        } catch (MessageCancelledException e) {
            // the token stays until a settle, which answers CANCELLED and clears the cancel's mark
            throw new UnknownDeliveryException(e.getMessage() + "; settle the token to end it");
        } catch (RmqUnavailableException e) {
            throw e;
        } catch (IllegalStateException | RmqException e) {
            deliveries.forget(delivery);
            throw new UnknownDeliveryException("the lease of this token's message is over (" + e.getMessage()
                    + "); nothing was done, and it will be delivered again");
        }
        if (!moves) {
            return new Extended(delivery.token(), delivery.leaseDeadline());
        }
        Delivery renamed = deliveries.alias(delivery, tokens.issue(delivery.message().ref()));
        return new Extended(renamed.token(), renamed.leaseDeadline());
    }

    /** What an extension gave: the token to settle with from now on, and the new lease deadline. */
    public record Extended(String token, Instant leaseDeadline) {
    }

    /** The delivery a token of another server names, when it is signed with the key this server shares. */
    private DeliveryRef elsewhere(String token) {
        DeliveryRef ref = tokens.read(token);
        if (ref == null || !topicNames.contains(ref.topic())) {
            throw unknown();
        }
        return ref;
    }

    /**
     * Acknowledges the messages of many tokens, one Redis call per slot; each outcome in the order given. A token
     * not held is {@link AckOutcome#STALE}: nothing was done for it.
     *
     * @throws PullerUnavailableException while the server starts or stops, with no token touched: another server's
     *                                    tokens are settled through this server's puller, so the whole request is
     *                                    to be sent again, as a single settle's would be
     */
    public List<AckOutcome> ackAll(List<String> tokens) {
        requireRunning();
        List<@Nullable Delivery> taken = new ArrayList<>(tokens.size());
        List<PulledMessage<JsonNode>> live = new ArrayList<>();
        List<@Nullable AckOutcome> settledElsewhere = new ArrayList<>(tokens.size());
        // a token given twice, or two tokens of one delivery (before and after an extension): the first acks it
        Set<String> seen = new HashSet<>();
        Set<PulledMessage<JsonNode>> held = Collections.newSetFromMap(new IdentityHashMap<>());
        for (String token : tokens) {
            if (!seen.add(token)) {
                taken.add(null);
                settledElsewhere.add(null);
                continue;
            }
            Delivery delivery = deliveries.take(token);
            settledElsewhere.add(delivery == null ? ackElsewhere(token) : null);
            if (delivery != null && !delivery.message().isSettled() && held.add(delivery.message())) {
                taken.add(delivery);
                live.add(delivery.message());
            } else {
                taken.add(null);
            }
        }
        // when some slot's call has no answer, after every slot's call was made, each message counts as ended here,
        // and a retry settles its token in Redis, as another server would
        List<AckOutcome> acked = live.isEmpty() ? List.of() : startedPuller().ackAll(live);
        List<AckOutcome> outcomes = new ArrayList<>(tokens.size());
        int next = 0;
        for (int i = 0; i < taken.size(); i++) {
            AckOutcome elsewhere = settledElsewhere.get(i);
            outcomes.add(taken.get(i) != null ? acked.get(next++) : elsewhere != null ? elsewhere : AckOutcome.STALE);
        }
        return outcomes;
    }

    /** Acknowledges the delivery of another server's token, one call of its own; null when it names none. */
    private @Nullable AckOutcome ackElsewhere(String token) {
        DeliveryRef ref = tokens.read(token);
        if (ref == null || !topicNames.contains(ref.topic())) {
            return null;
        }
        // stopped since the request began: the tokens taken so far are settled by reference on its retry
        requireRunning();
        try {
            return startedPuller().settle(ref, Settlement.ACK, null);
        } catch (LeaseExpiredException | IllegalArgumentException e) {
            return AckOutcome.STALE;
        }
    }

    /** An at-most-once message left Redis when it was taken; the server keeps its token for a lease's time. */
    private @Nullable Instant fixedDeadlineOf(PulledMessage<JsonNode> message) {
        TopicDefinition topic = topics.require(message.topic());
        return topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE ? clock.instant().plus(topic.leaseTimeout()) : null;
    }

    /** A reason {@link #settle} checked already: every settlement but an ack has one. */
    private static String given(@Nullable String reason) {
        return Objects.requireNonNull(reason, "a settlement other than an ack has its reason");
    }

    /** The puller of the last start: every caller comes after one (it runs, or it handed out the messages at hand). */
    private RmqPuller<JsonNode> startedPuller() {
        return Objects.requireNonNull(puller, "the puller was started");
    }

    private static UnknownDeliveryException unknown() {
        return new UnknownDeliveryException("no message is held under this delivery token: it was settled already,"
                + " its lease passed, or it never was one. Nothing was done; a message not settled within its lease"
                + " is delivered again");
    }

    private void requireRunning() {
        if (!running) {
            throw new PullerUnavailableException("the server is starting or stopping and hands out no messages now;"
                    + " try again in a moment");
        }
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        RmqPuller<JsonNode> started = pullers.get();
        started.start();
        puller = started;
        deliveries.startSweeping();
        running = true;
    }

    /** Ends the waiting pulls and hands back unstarted what clients did not settle. */
    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        int held = deliveries.size();
        startedPuller().close();
        deliveries.close();
        if (held > 0) {
            log.info("{} pulled message(s) not settled by their clients were handed back; their tokens are void", held);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The highest phase stops first: before the web server waits for its requests, the long pulls among them. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    @Override
    public void close() {
        stop();
        deliveries.close();
    }
}
