package dev.rmq.internal.consumer;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcomes of an at-most-once batch. Its messages left Redis when they were taken, so a success needs no
 * call and a failure loses the message: it is counted (by the consume metrics) and logged. Only the messages a
 * stopping worker never started go back, at their place and without counting an attempt.
 */
final class AtMostOnceSettlement implements Settlement {

    private static final Logger log = LoggerFactory.getLogger(AtMostOnceSettlement.class);

    private final String worker;
    private final TopicDefinition topic;
    private final SlotCalls calls;
    private final HandlerFailures lost;
    private final List<PrepareCall.Message> unstarted = new ArrayList<>();

    AtMostOnceSettlement(String worker, TopicDefinition topic, SlotCalls calls, HandlerFailures lost) {
        this.worker = worker;
        this.topic = topic;
        this.calls = calls;
        this.lost = lost;
    }

    @Override
    public void add(AckCall.Op op, Delivery<?> delivery, String reason, Throwable cause) {
        switch (op) {
            case COMMIT -> {
            }
            case RELEASE -> unstarted.add(new PrepareCall.Message(delivery.key(), delivery.rawEnvelope()));
            default -> lost.failed(delivery, cause, reason, AckOutcome.GONE, op == AckCall.Op.RETRY_NOW);
        }
    }

    @Override
    public void addUndecodable(String key, long token, String reason) {
        lost.undecodable(key, -1, reason);
    }

    @Override
    public int pending() {
        return unstarted.size();
    }

    @Override
    public boolean flush(SlotState state, WorkerControl control) {
        if (unstarted.isEmpty()) {
            return true;
        }
        List<PrepareCall.Message> back = List.copyOf(unstarted);
        unstarted.clear();
        try {
            calls.putback(state.keys, back);
        } catch (RuntimeException e) {
            log.warn("worker {} could not hand back {} unstarted at-most-once message(s) of {}; they are lost: {}",
                    worker, back.size(), state.keys.hashTag(), e.toString());
        }
        return true;
    }

    @Override
    public boolean leased() {
        return false;
    }
}
