package dev.rmq.internal.slot;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.PrepareCall;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * At most once: a message left Redis when it was taken. A success needs no call, and a failure loses the message:
 * it is counted (by the consume metrics) and logged. Only what a stop never started goes back, at its place and
 * without counting an attempt (putback.lua).
 */
final class AtMostOnce implements Guarantee {

    static final AtMostOnce INSTANCE = new AtMostOnce();

    private static final Logger log = LoggerFactory.getLogger(AtMostOnce.class);

    private AtMostOnce() {
    }

    @Override
    public boolean leased() {
        return false;
    }

    @Override
    public List<AckOutcome> end(SlotSession<?> session, List<Ending> endings) {
        Sessions<?> owner = session.owner();
        List<AckOutcome> outcomes = new ArrayList<>(endings.size());
        List<PrepareCall.Message> back = new ArrayList<>();
        for (Ending ending : endings) {
            switch (ending.op()) {
                case COMMIT -> outcomes.add(AckOutcome.COMMITTED);
                // it left Redis as it was taken: a hand-back puts it back as a stop does, uncounted
                case RELEASE, HAND_BACK -> {
                    back.add(new PrepareCall.Message(ending.key(), ending.decoded().rawEnvelope()));
                    outcomes.add(AckOutcome.RELEASED);
                }
                case UNDECODABLE, UNDECRYPTABLE -> {
                    owner.failures().undecodable(ending.key(), session.slot, ending.reason());
                    outcomes.add(AckOutcome.GONE);
                }
                default -> {
                    owner.failures().failed(ending.decoded(), ending.cause(), ending.reason(), AckOutcome.GONE,
                            ending.op() == AckCall.Op.RETRY_NOW);
                    outcomes.add(AckOutcome.GONE);
                }
            }
        }
        if (!back.isEmpty()) {
            try {
                owner.calls().putback(session.keys, back);
            } catch (RuntimeException e) {
                log.warn("{} {} could not hand back {} unstarted at-most-once message(s) of {}; they are lost: {}",
                        owner.kind(), owner.id(), back.size(), session.keys.hashTag(), e.toString());
                outcomes.replaceAll(outcome -> outcome == AckOutcome.RELEASED ? AckOutcome.GONE : outcome);
            }
        }
        return outcomes;
    }

    @Override
    public Ending cutOff(Delivery<?> delivery) {
        // it had left Redis when it started: it is lost rather than delivered a second time
        return Ending.of(AckCall.Op.ROLL_BACK, delivery, "interrupted by the consumer's stop", null);
    }
}
