package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import org.springframework.boot.context.properties.bind.DefaultValue;

import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * The autowirable producer, under {@code rmq.producer}.
 *
 * @param durability      How many Redis replicas must hold a send before it completes.
 * @param afterCommit     Whether a send inside a Spring transaction waits for its commit, and is dropped on a
 *                        rollback (with spring-tx on the class path); false sends at once everywhere.
 * @param afterCommitWait The longest a committing thread waits for Redis's answers to the sends its
 *                        transaction held; 0 waits not at all.
 * @param sendBuffer      The most bytes of messages that single sends may hold waiting for the call in flight to
 *                        Redis before them; a send past it fails at once with SendBufferFullException.
 */
public record RmqProducerProperties(@DefaultValue Durability durability, @DefaultValue("true") boolean afterCommit,
                                    @DefaultValue("5s") Duration afterCommitWait,
                                    @DefaultValue("32MB") DataSize sendBuffer) {

    public RmqProducerProperties {
        if (sendBuffer.toBytes() < RmqClient.MIN_SEND_BUFFER_BYTES) {
            throw new IllegalArgumentException("rmq.producer.send-buffer must be at least "
                    + RmqClient.MIN_SEND_BUFFER_BYTES + "B, was " + sendBuffer);
        }
    }

    /**
     * Durable sends. Redis replicates asynchronously, so a master that fails right after acknowledging a send
     * can lose it; with replicas above 0 every send waits (Redis WAIT) until that many replicas of each master
     * it wrote to hold it, and fails with NotReplicatedException when they do not within the timeout.
     *
     * @param replicas Replicas that must acknowledge each send; 0 (the default) trusts the master alone.
     * @param timeout  How long a send waits for its replicas.
     */
    public record Durability(@DefaultValue("0") int replicas, @DefaultValue("1s") Duration timeout) {

        public Durability {
            toCore(replicas, timeout);
        }

        /** These values as the core's durability. */
        public dev.rmq.producer.Durability toCore() {
            return toCore(replicas, timeout);
        }

        private static dev.rmq.producer.Durability toCore(int replicas, Duration timeout) {
            try {
                return replicas == 0 ? dev.rmq.producer.Durability.MASTER_ONLY
                        : dev.rmq.producer.Durability.replicas(replicas, timeout);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("rmq.producer.durability: " + e.getMessage(), e);
            }
        }
    }
}
