package dev.rmq.pull;

import dev.rmq.topic.Names;

import java.time.Instant;

/**
 * What identifies one delivery of a pulled message wherever it is settled: its topic, slot and key, and the lease
 * deadline Redis keeps for it (in microseconds of the Redis clock). A later delivery of the key, or an extension of
 * this one, has another deadline, so a reference settles this delivery and no other. Any puller of the topic can
 * settle a delivery by its reference ({@link RmqPuller#settle}), not only the one that handed it out: how servers
 * behind one load balancer share their clients' deliveries. A reference is not a secret in itself; a server that
 * hands it to clients signs it.
 *
 * @param topic the topic
 * @param slot  the slot the message was taken from
 * @param key   the message key
 * @param lease the delivery's lease deadline, microseconds of the Redis clock; it changes with each extension
 */
public record DeliveryRef(String topic, int slot, String key, long lease) {

    public DeliveryRef {
        Names.check("topic of a delivery reference", topic);
        if (slot < 0) {
            throw new IllegalArgumentException("slot of a delivery reference must not be negative, was " + slot);
        }
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key of a delivery reference must not be null or empty");
        }
        if (lease <= 0) {
            throw new IllegalArgumentException("lease of a delivery reference must be a lease deadline in microseconds,"
                    + " was " + lease + "; an at-most-once delivery holds no lease and has no reference");
        }
    }

    /** The lease deadline, to the millisecond. */
    public Instant leaseDeadline() {
        return Instant.ofEpochMilli(lease / 1_000);
    }
}
