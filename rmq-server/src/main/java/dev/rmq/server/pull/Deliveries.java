package dev.rmq.server.pull;

import dev.rmq.pull.PulledMessage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The messages clients hold, by token. An entry leaves when its message is settled, or once its lease has passed:
 * a sweep every second removes those, since their messages come back on their own and a late settle must be
 * refused. The table is bounded by the puller itself, which takes a slot's next batch only when every message of
 * its previous one was settled or its lease ran out.
 */
final class Deliveries implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Deliveries.class);
    private static final Duration SWEEP_EVERY = Duration.ofSeconds(1);
    /**
     * How long past its lease deadline an entry is kept. A deadline is on the Redis clock and the sweep on this
     * host's, so a token is not withdrawn early because of a small skew between the two; a settle that comes
     * after the lease ran out is refused by rmq either way.
     */
    private static final Duration GRACE = Duration.ofSeconds(1);

    private final ConcurrentHashMap<String, Delivery> byToken = new ConcurrentHashMap<>();
    private final Clock clock;
    private @Nullable ScheduledExecutorService sweeper;

    Deliveries(Clock clock) {
        this.clock = clock;
    }

    synchronized void startSweeping() {
        if (sweeper != null) {
            return;
        }
        sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "rmq-server-lease-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, SWEEP_EVERY.toMillis(), SWEEP_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /**
     * Registers a message under its token: one that names its delivery (a lease deadline is never granted twice),
     * or a random one of 128 bits, which no other matches.
     */
    Delivery add(String token, PulledMessage<JsonNode> message, @Nullable Instant fixedDeadline) {
        Delivery delivery = new Delivery(token, message, fixedDeadline);
        if (byToken.putIfAbsent(token, delivery) != null) {
            throw new IllegalStateException("delivery token issued twice, for message '" + message.key() + "' of "
                    + message.topic());
        }
        return delivery;
    }

    /**
     * Registers a delivery under its new token as well, after an extension gave it a new lease deadline: the new
     * token settles it on any server, the one it replaces still on this one (a client whose extension's answer was
     * lost has that one). Whichever comes first settles it; the other then finds it ended. Every other token of the
     * message is withdrawn: kept until the lease ends, a job that extends every few seconds for hours would leave
     * an entry per extension.
     */
    Delivery alias(Delivery delivery, String token) {
        Delivery renamed = new Delivery(token, delivery.message(), delivery.fixedDeadline());
        byToken.put(token, renamed);
        // the one before, and one whose extension's answer was lost (the client extended again with an older one)
        for (Delivery other : byToken.values()) {
            if (other.message() == delivery.message() && !other.token().equals(token)
                    && !other.token().equals(delivery.token())) {
                byToken.remove(other.token(), other);
            }
        }
        return renamed;
    }

    /** The delivery of this token, taken out of the table so that no second request can settle it; null if none. */
    @Nullable Delivery take(String token) {
        return token == null ? null : byToken.remove(token);
    }

    /** The delivery of this token, left in the table; null if none. */
    @Nullable Delivery find(String token) {
        return token == null ? null : byToken.get(token);
    }

    /** Removes a delivery whose lease turned out to be over. */
    void forget(Delivery delivery) {
        byToken.remove(delivery.token(), delivery);
    }

    /** Removes the entries whose lease passed; returns how many. */
    int sweep() {
        Instant cutoff = clock.instant().minus(GRACE);
        int removed = 0;
        for (Delivery delivery : byToken.values()) {
            if (delivery.leaseDeadline().isBefore(cutoff) && byToken.remove(delivery.token(), delivery)) {
                removed++;
            }
        }
        return removed;
    }

    private void sweepQuietly() {
        try {
            int removed = sweep();
            if (removed > 0) {
                log.debug("{} delivery token(s) withdrawn: their leases passed unsettled", removed);
            }
        } catch (RuntimeException e) {
            // a sweep that failed is simply repeated a second later; the scheduler must not stop
            log.warn("sweeping expired delivery tokens failed", e);
        }
    }

    /** How many messages are held, each once, whatever the number of its tokens. */
    int size() {
        Set<PulledMessage<JsonNode>> held = Collections.newSetFromMap(new IdentityHashMap<>());
        byToken.values().forEach(delivery -> held.add(delivery.message()));
        return held.size();
    }

    @Override
    public synchronized void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
            sweeper = null;
        }
        byToken.clear();
    }
}
