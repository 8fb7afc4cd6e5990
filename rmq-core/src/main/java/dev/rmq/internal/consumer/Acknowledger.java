package dev.rmq.internal.consumer;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.events.RmqEvent;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.AckCall;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Gathers the acknowledgements of one worker's batch and sends them in one call: commits, rollbacks, deaths
 * and releases of unstarted deliveries. Reports each outcome to the metrics and the event listener.
 */
final class Acknowledger implements Settlement {

    private static final Logger log = LoggerFactory.getLogger(Acknowledger.class);

    private final String worker;
    private final TopicDefinition topic;
    private final SlotCalls calls;
    private final RmqMetrics metrics;
    private final ConsumerEvents events;
    private final List<Pending> pending = new ArrayList<>();
    private final HandlerFailures failureLog;

    /**
     * One acknowledgement to send. The token is read when it is sent: a lease timer may renew the lease of a done
     * delivery while the rest of its batch runs.
     *
     * @param delivery the delivery, null for a message that could not be decoded (whose token is then {@code token})
     * @param failure  the failure to log once the outcome is known; null for a commit, a release or an undecodable
     */
    private record Pending(AckCall.Op op, String key, long token, String error, Delivery<?> delivery,
                           Failure failure) {

        AckCall.Ack ack() {
            return new AckCall.Ack(op, key, delivery != null ? delivery.token() : token, error);
        }
    }

    /** A handler's failure, kept until its acknowledgement says what became of the message. */
    private record Failure(Delivery<?> delivery, String reason, Throwable cause, boolean immediate) {
    }

    Acknowledger(String worker, TopicDefinition topic, SlotCalls calls, RmqMetrics metrics, ConsumerEvents events,
                 HandlerFailures failureLog) {
        this.worker = worker;
        this.topic = topic;
        this.calls = calls;
        this.metrics = metrics;
        this.events = events;
        this.failureLog = failureLog;
    }

    @Override
    public void add(AckCall.Op op, Delivery<?> delivery, String error, Throwable cause) {
        boolean failed = op == AckCall.Op.ROLL_BACK || op == AckCall.Op.RETRY_NOW || op == AckCall.Op.DEAD;
        pending.add(new Pending(op, delivery.key(), 0, error, delivery,
                failed ? new Failure(delivery, error, cause, op == AckCall.Op.RETRY_NOW) : null));
    }

    @Override
    public void addUndecodable(String key, long token, String error) {
        pending.add(new Pending(AckCall.Op.UNDECODABLE, key, token, error, null, null));
    }

    @Override
    public int pending() {
        return pending.size();
    }

    /**
     * Sends the acks gathered so far. Returns false when the worker turned out to have lost the slot: the
     * acks were refused, and the caller must let the slot go. While the worker stops, a failed call is counted
     * as deliveries left to lease recovery instead of logged.
     */
    @Override
    public boolean flush(SlotState state, WorkerControl control) {
        if (pending.isEmpty()) {
            return true;
        }
        List<Pending> entries = List.copyOf(pending);
        List<AckCall.Ack> sent = entries.stream().map(Pending::ack).toList();
        pending.clear();
        try {
            List<AckOutcome> outcomes = calls.ack(state.keys, state.fence, sent);
            state.verifiedNanos = System.nanoTime();
            for (int i = 0; i < outcomes.size(); i++) {
                report(state, sent.get(i), outcomes.get(i));
                Failure failure = entries.get(i).failure();
                if (failure != null) {
                    failureLog.failed(failure.delivery(), failure.cause(), failure.reason(), outcomes.get(i),
                            failure.immediate());
                } else if (sent.get(i).op() == AckCall.Op.UNDECODABLE && outcomes.get(i) == AckOutcome.DEAD) {
                    failureLog.undecodable(sent.get(i).key(), state.slot, sent.get(i).error());
                }
            }
        } catch (SlotFencedException e) {
            log.warn("worker {} lost {} before acknowledging {} message(s); they will be redelivered", worker,
                    state.keys.hashTag(), sent.size());
            events.emit(() -> new RmqEvent.SlotFenced(Instant.now(), topic.name(), state.slot, worker, "ack", sent.size()));
            return false;
        } catch (RuntimeException e) {
            if (control.stopping()) {
                control.leftToLeases(sent.size());
                log.debug("worker {} could not acknowledge {} message(s) of {} while stopping: {}", worker, sent.size(),
                        state.keys.hashTag(), e.toString());
            } else {
                log.warn("worker {} could not acknowledge {} message(s) of {}; their leases will recover them: {}",
                        worker, sent.size(), state.keys.hashTag(), e.toString());
            }
            events.emit(() -> new RmqEvent.AckFailed(Instant.now(), topic.name(), state.slot, worker,
                    sent.stream().map(AckCall.Ack::key).toList(), e.toString()));
        }
        return true;
    }

    @Override
    public boolean leased() {
        return true;
    }

    private void report(SlotState state, AckCall.Ack ack, AckOutcome outcome) {
        metrics.acknowledged(topic, outcome);
        if (outcome == AckOutcome.STALE) {
            log.info("worker {}: the lease of '{}' in {} ran out before its ack; it is redelivered", worker, ack.key(),
                    state.keys.hashTag());
        }
        events.emit(() -> new RmqEvent.Acknowledged(Instant.now(), topic.name(), state.slot, worker, ack.key(), outcome,
                ack.error()));
    }
}
