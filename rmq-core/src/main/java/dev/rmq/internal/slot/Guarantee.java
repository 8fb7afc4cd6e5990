package dev.rmq.internal.slot;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.script.AckCall;
import dev.rmq.topic.DeliveryGuarantee;

import java.util.List;

/**
 * What a topic's delivery guarantee makes of a slot session's deliveries. At least once ({@link AtLeastOnce}) each
 * holds a lease in Redis until its ending is acknowledged there. At most once ({@link AtMostOnce}) a message left
 * Redis when it was taken: an ending needs no call, a failure loses the message, and only what a stop never started
 * goes back. Only the engine asks which one it has; the drivers end deliveries the same way under either.
 */
sealed interface Guarantee permits AtLeastOnce, AtMostOnce {

    static Guarantee of(DeliveryGuarantee delivery) {
        return delivery == DeliveryGuarantee.AT_MOST_ONCE ? AtMostOnce.INSTANCE : AtLeastOnce.INSTANCE;
    }

    /** Whether each delivery holds a lease in Redis that the session renews and its ending must quote. */
    boolean leased();

    /**
     * Ends deliveries of {@code session} in one go and reports each outcome.
     *
     * @throws dev.rmq.internal.redis.SlotFencedException when another consumer has taken the slot over
     * @throws RuntimeException                           when Redis did not answer: the outcome is unknown
     */
    List<AckOutcome> end(SlotSession<?> session, List<Ending> endings);

    /** What a delivery whose handler the stop cut off becomes: not the message's failure, where that can be kept. */
    Ending cutOff(Delivery<?> delivery);

    /** What a delivery that was never started becomes. */
    default Ending unstarted(Delivery<?> delivery) {
        return Ending.of(AckCall.Op.RELEASE, delivery, "", null);
    }
}
