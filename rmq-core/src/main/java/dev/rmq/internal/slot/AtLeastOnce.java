package dev.rmq.internal.slot;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.script.AckCall;

import java.util.List;

/**
 * At least once: each delivery holds a lease until Redis acknowledges its ending. The endings of a session go in
 * one call (ack.lua): commits, rollbacks, deaths, releases of unstarted deliveries, and the burial of what could
 * not be decoded.
 */
final class AtLeastOnce implements Guarantee {

    static final AtLeastOnce INSTANCE = new AtLeastOnce();

    private AtLeastOnce() {
    }

    @Override
    public boolean leased() {
        return true;
    }

    @Override
    public List<AckOutcome> end(SlotSession<?> session, List<Ending> endings) {
        long before = System.nanoTime();
        List<AckOutcome> outcomes = session.owner().calls().ack(session.keys, session.fence, acks(endings));
        // the ack call checked the fencing token (at most once, where a success makes no call, nothing is confirmed)
        session.verified(before);
        report(session, endings, outcomes);
        return outcomes;
    }

    static List<AckCall.Ack> acks(List<Ending> endings) {
        return endings.stream().map(Ending::ack).toList();
    }

    /** Reports what Redis made of each ending: the event and metrics, and a failure in the failure log. */
    static void report(SlotSession<?> session, List<Ending> endings, List<AckOutcome> outcomes) {
        Sessions<?> owner = session.owner();
        for (int i = 0; i < outcomes.size(); i++) {
            Ending ending = endings.get(i);
            AckOutcome outcome = outcomes.get(i);
            owner.acknowledged(session, ending.key(), outcome, ending.reason());
            if (ending.failed() && owner.logsFailures()) {
                owner.failures().failed(ending.decoded(), ending.cause(), ending.reason(), outcome,
                        ending.op() == AckCall.Op.RETRY_NOW);
            } else if (ending.unreadable() && outcome == AckOutcome.DEAD) {
                owner.failures().undecodable(ending.key(), session.slot, ending.reason());
            } else if (ending.op() == AckCall.Op.HAND_BACK && outcome == AckOutcome.DEAD && owner.logsFailures()) {
                owner.failures().releasesSpent(ending.decoded(), ending.reason());
            }
        }
    }

    @Override
    public Ending cutOff(Delivery<?> delivery) {
        // the lease still holds it: back to waiting, its attempt not counted
        return unstarted(delivery);
    }
}
