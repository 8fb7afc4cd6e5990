package dev.rmq.events;

import dev.rmq.consumer.AckOutcome;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.List;

/**
 * Something a consumer did to a slot or a message. Each event carries the host clock's time, the topic and
 * slot, and the worker (a container's consumer thread, {@code <container id>-<n>}; its thread is named
 * {@code rmq-<worker>}).
 */
public sealed interface RmqEvent {

    Instant time();

    String topic();

    int slot();

    String worker();

    /**
     * A worker was given a slot and polls it from now on (after the hold-off of a takeover).
     *
     * @param fenced whether the slot is fenced with a token (assigned by coordination)
     */
    record SlotAssigned(Instant time, String topic, int slot, String worker, boolean fenced) implements RmqEvent {
    }

    /** A worker let a slot go: none of its handlers for the slot runs or starts after this. */
    record SlotReleased(Instant time, String topic, int slot, String worker) implements RmqEvent {
    }

    /**
     * A worker found that another worker owns the slot now: Redis refused its fencing token.
     *
     * @param during   what it was doing: {@code poll}, {@code ack} or {@code extend}
     * @param messages the deliveries it had in hand, now left to lease recovery
     */
    record SlotFenced(Instant time, String topic, int slot, String worker, String during, int messages)
            implements RmqEvent {
    }

    /**
     * Redis ended a delivery as its acknowledgement asked, or refused it ({@link AckOutcome#STALE}).
     *
     * @param key     the message key
     * @param outcome what Redis did
     * @param reason  why the delivery failed, when it did; empty otherwise
     */
    record Acknowledged(Instant time, String topic, int slot, String worker, String key, AckOutcome outcome,
                        String reason) implements RmqEvent {
    }

    /**
     * An acknowledgement call failed (Redis did not answer, or answered with an error): its deliveries may or
     * may not have ended, and the leases of those that did not will recover them.
     *
     * @param keys  the message keys the call carried
     * @param error what went wrong
     */
    record AckFailed(Instant time, String topic, int slot, String worker, List<String> keys, String error)
            implements RmqEvent {

        public AckFailed {
            keys = List.copyOf(keys);
        }
    }

    /**
     * A poll took a message and handed it to a handler or a pull: one event per message, in the order taken.
     *
     * @param key     the message key
     * @param attempt which delivery of the message this is, from 1
     * @param atMostOnce whether the topic delivers at most once: the message left Redis as it was taken, and no
     *                   acknowledgement follows
     * @param sendId  the send whose content this delivery carries (the header
     *                {@link dev.rmq.journal.MessageJournal#SEND_ID_HEADER}, which a journaled topic's sends have), or
     *                null when it has none
     */
    record Delivered(Instant time, String topic, int slot, String worker, String key, int attempt, boolean atMostOnce,
                     @Nullable String sendId) implements RmqEvent {

        /** A delivery of a message that names no send. */
        public Delivered(Instant time, String topic, int slot, String worker, String key, int attempt,
                         boolean atMostOnce) {
            this(time, topic, slot, worker, key, attempt, atMostOnce, null);
        }
    }

    /**
     * A poll recovered deliveries whose lease had run out (their consumer died, hung, or lost Redis), each ended as
     * a failed attempt.
     *
     * @param leases each recovered delivery, in the order recovered
     */
    record LeasesRecovered(Instant time, String topic, int slot, String worker, List<RecoveredLease> leases)
            implements RmqEvent {

        public LeasesRecovered {
            leases = List.copyOf(leases);
        }

        /** How many deliveries were recovered. */
        public int count() {
            return leases.size();
        }
    }

    /**
     * A delivery whose lease ran out, and what its recovery did with the message.
     *
     * @param key     the message key
     * @param outcome {@link AckOutcome#RETRY} (it waits out its backoff), {@link AckOutcome#DEAD} (that was its last
     *                attempt), {@link AckOutcome#EXPIRED} (its time to live ran out), {@link AckOutcome#MERGED} (a
     *                newer send of its key waited and takes its place) or {@link AckOutcome#GONE} (nothing was in
     *                flight)
     */
    record RecoveredLease(String key, AckOutcome outcome) {
    }
}
