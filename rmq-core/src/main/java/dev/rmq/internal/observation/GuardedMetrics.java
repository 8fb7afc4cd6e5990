package dev.rmq.internal.observation;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * The application's {@link RmqMetrics}, called so that one that throws breaks nothing: rmq reports a figure after
 * the work it counts (a send Redis stored, a batch a poll took), and an exception there would fail a stored send,
 * whose sender might then send it again, or lose a batch to its leases. A failure drops the figure and is logged
 * ({@link CallbackFailures}) under the {@code RmqMetrics} logger. Each figure is passed on written out, not through
 * a shared lambda, since most are reported once per message.
 */
public final class GuardedMetrics implements RmqMetrics {

    private final RmqMetrics metrics;
    private final CallbackFailures failures;

    private GuardedMetrics(RmqMetrics metrics) {
        this.metrics = metrics;
        this.failures = new CallbackFailures(LoggerFactory.getLogger(RmqMetrics.class),
                "the rmq metrics", metrics, "the figure is dropped");
    }

    /** {@code metrics}, guarded; {@link RmqMetrics#NONE} as it is, since it cannot throw. */
    public static RmqMetrics of(RmqMetrics metrics) {
        return metrics == RmqMetrics.NONE || metrics instanceof GuardedMetrics ? metrics : new GuardedMetrics(metrics);
    }

    @Override
    public void redisOutage(String who, @Nullable String topic, Duration length) {
        try {
            metrics.redisOutage(who, topic, length);
        } catch (RuntimeException e) {
            failures.failed("redisOutage", e);
        }
    }

    @Override
    public void sent(TopicDefinition topic, int messages, int merged, long nanos, @Nullable Throwable error) {
        try {
            metrics.sent(topic, messages, merged, nanos, error);
        } catch (RuntimeException e) {
            failures.failed("sent", e);
        }
    }

    @Override
    public void refused(TopicDefinition topic, int messages) {
        try {
            metrics.refused(topic, messages);
        } catch (RuntimeException e) {
            failures.failed("refused", e);
        }
    }

    @Override
    public void topicDefined(TopicDefinition topic) {
        try {
            metrics.topicDefined(topic);
        } catch (RuntimeException e) {
            failures.failed("topicDefined", e);
        }
    }

    @Override
    public void scheduleTicks(String schedule, String topic, long ticks) {
        try {
            metrics.scheduleTicks(schedule, topic, ticks);
        } catch (RuntimeException e) {
            failures.failed("scheduleTicks", e);
        }
    }

    @Override
    public void scheduleMisfires(String schedule, String topic, String policy, long ticks) {
        try {
            metrics.scheduleMisfires(schedule, topic, policy, ticks);
        } catch (RuntimeException e) {
            failures.failed("scheduleMisfires", e);
        }
    }

    @Override
    public void scheduleSkipped(String schedule, String topic, long ticks) {
        try {
            metrics.scheduleSkipped(schedule, topic, ticks);
        } catch (RuntimeException e) {
            failures.failed("scheduleSkipped", e);
        }
    }

    @Override
    public void scheduleLateness(String schedule, TopicDefinition topic, long millis) {
        try {
            metrics.scheduleLateness(schedule, topic, millis);
        } catch (RuntimeException e) {
            failures.failed("scheduleLateness", e);
        }
    }

    @Override
    public void duplicate(TopicDefinition topic, SendReceipt.Outcome outcome) {
        try {
            metrics.duplicate(topic, outcome);
        } catch (RuntimeException e) {
            failures.failed("duplicate", e);
        }
    }

    @Override
    public void sentLate(TopicDefinition topic, long millis) {
        try {
            metrics.sentLate(topic, millis);
        } catch (RuntimeException e) {
            failures.failed("sentLate", e);
        }
    }

    @Override
    public void expired(TopicDefinition topic, long messages) {
        try {
            metrics.expired(topic, messages);
        } catch (RuntimeException e) {
            failures.failed("expired", e);
        }
    }

    @Override
    public void consumed(TopicDefinition topic, ConsumeResult.Outcome outcome, long nanos) {
        try {
            metrics.consumed(topic, outcome, nanos);
        } catch (RuntimeException e) {
            failures.failed("consumed", e);
        }
    }

    @Override
    public void lateness(TopicDefinition topic, long millis) {
        try {
            metrics.lateness(topic, millis);
        } catch (RuntimeException e) {
            failures.failed("lateness", e);
        }
    }

    @Override
    public void acknowledged(TopicDefinition topic, AckOutcome outcome) {
        try {
            metrics.acknowledged(topic, outcome);
        } catch (RuntimeException e) {
            failures.failed("acknowledged", e);
        }
    }

    @Override
    public void recovered(TopicDefinition topic, long leases) {
        try {
            metrics.recovered(topic, leases);
        } catch (RuntimeException e) {
            failures.failed("recovered", e);
        }
    }
}
