package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.exceptions.RmqException;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.slot.SlotSession;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/** A puller's acknowledgement of many messages at once ({@link dev.rmq.pull.RmqPuller#ackAll}). */
final class BatchAck {

    private BatchAck() {
    }

    /**
     * Acknowledges the messages, one call per slot, each made whatever became of the calls before it. When some
     * failed, throws what the rest came to; the messages of a failed call are ended as far as this puller knows,
     * and their leases settle them.
     *
     * @param deliveredHere whether the puller handed out a delivery: only its own are its to end
     */
    @SuppressWarnings("unchecked")
    static <T> List<AckOutcome> ackAll(String id, Collection<? extends PulledMessage<T>> messages,
                                       Predicate<PulledDelivery<?>> deliveredHere) {
        if (messages == null) {
            throw new IllegalArgumentException("messages must not be null");
        }
        Map<SlotSession<T>, List<Integer>> bySlot = new LinkedHashMap<>();
        List<PulledDelivery<T>> deliveries = new ArrayList<>();
        Set<PulledDelivery<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (PulledMessage<T> message : messages) {
            if (!(message instanceof PulledDelivery<?> delivery) || !deliveredHere.test(delivery)) {
                throw new IllegalArgumentException("message " + message + " was not delivered by puller " + id);
            }
            if (delivery.isSettled()) {
                throw new IllegalArgumentException("message '" + delivery.key() + "' of " + delivery.topic() + "_"
                        + delivery.slot() + " was already ended");
            }
            if (!seen.add(delivery)) {
                throw new IllegalArgumentException("message '" + delivery.key() + "' of " + delivery.topic() + "_"
                        + delivery.slot() + " is given more than once; each delivery is ended once");
            }
            PulledDelivery<T> mine = (PulledDelivery<T>) delivery;
            bySlot.computeIfAbsent(mine.session(), s -> new ArrayList<>()).add(deliveries.size());
            deliveries.add(mine);
        }
        AckOutcome[] outcomes = new AckOutcome[deliveries.size()];
        // each slot's call is made whatever became of the others': a failed one leaves only its own messages unknown
        RmqException failed = null;
        int failedCalls = 0;
        int unknown = 0;
        for (Map.Entry<SlotSession<T>, List<Integer>> group : bySlot.entrySet()) {
            List<PulledDelivery<T>> ofSlot = group.getValue().stream().map(deliveries::get).toList();
            List<AckOutcome> ended;
            try {
                ended = ofSlot.get(0).settlement().settleAll(ofSlot, AckCall.Op.COMMIT, "");
            } catch (LeaseExpiredException e) {
                ended = Collections.nCopies(ofSlot.size(), AckOutcome.STALE);
            } catch (RmqException e) {
                failed = failed == null ? e : failed;
                failedCalls++;
                unknown += ofSlot.size();
                continue;
            }
            for (int i = 0; i < ofSlot.size(); i++) {
                outcomes[group.getValue().get(i)] = ended.get(i);
            }
        }
        if (failed != null) {
            throw incomplete(id, outcomes, unknown, failedCalls, failed);
        }
        return List.of(outcomes);
    }

    /** What an {@link #ackAll} tells when some of its slots' calls failed: what became of the rest. */
    private static RmqException incomplete(String id, AckOutcome[] outcomes, int unknown, int failedCalls,
                                           RmqException first) {
        Map<AckOutcome, Integer> known = new EnumMap<>(AckOutcome.class);
        for (AckOutcome outcome : outcomes) {
            if (outcome != null) {
                known.merge(outcome, 1, Integer::sum);
            }
        }
        String message = "puller " + id + " acknowledged " + (outcomes.length - unknown) + " of " + outcomes.length
                + " message(s) " + known + "; " + failedCalls + " slot call(s) failed (" + first + "), so whether "
                + unknown + " message(s) were acknowledged is not known: those that were not are delivered again "
                + "once their leases run out";
        return first instanceof RmqUnavailableException ? new RmqUnavailableException(message, first)
                : new RmqException(message, first);
    }
}
