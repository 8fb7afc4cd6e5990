package dev.rmq.producer;

import java.time.Duration;

/**
 * How many replicas must hold a send before it counts as done. Redis replicates asynchronously, so a
 * master that dies right after acknowledging a write can lose it; with {@code replicas > 0} a send waits
 * (Redis {@code WAIT}) until that many replicas of every node it wrote to have it, or fails with
 * {@link NotReplicatedException} when they do not within {@code timeout}.
 *
 * @param replicas the replicas that must acknowledge, 0 for none
 * @param timeout  how long to wait for them
 */
public record Durability(int replicas, Duration timeout) {

    /** The master's acknowledgement is enough (the default, and the fastest). */
    public static final Durability MASTER_ONLY = new Durability(0, Duration.ofMillis(1));

    public Durability {
        if (replicas < 0 || replicas > 16) {
            throw new IllegalArgumentException("replicas must be in 0..16, was " + replicas);
        }
        if (timeout == null || timeout.compareTo(Duration.ofMinutes(1)) > 0 || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("replication timeout must be between 1 ms and 1 min, was " + timeout);
        }
    }

    public static Durability replicas(int replicas, Duration timeout) {
        return new Durability(replicas, timeout);
    }

    /** Whether a send waits for replicas. */
    public boolean waitsForReplicas() {
        return replicas > 0;
    }
}
