package dev.rmq.metrics;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Micrometer meters for rmq, tagged only with {@code topic}, {@code type} and {@code result}:
 * <ul>
 * <li>{@code rmq.send} timer per send call, {@code rmq.send.messages} counter of messages sent,
 * {@code rmq.send.refused} counter of messages refused by a full backlog, {@code rmq.send.duplicates} counter of
 * sends their repeated-key rule left out (result {@code kept} or {@code throttled}), {@code rmq.send.late} distribution (ms)
 * of how late fixed times arrived;</li>
 * <li>{@code rmq.expired} counter of messages whose time to live ran out, result {@code dropped} or {@code dead};</li>
 * <li>{@code rmq.consume} timer per handled message, result {@code success}, {@code retry} or {@code dead};</li>
 * <li>{@code rmq.merges}, {@code rmq.retries}, {@code rmq.dead}, {@code rmq.lease.recovered},
 * {@code rmq.ack.stale} counters;</li>
 * <li>{@code rmq.schedule.ticks}, {@code rmq.schedule.misfires} (tag {@code policy}) and {@code rmq.schedule.skipped}
 * counters and the {@code rmq.schedule.lateness} distribution (ms) of consume start minus the tick's instant, tagged
 * {@code schedule} and {@code topic};</li>
 * <li>{@code rmq.lateness} distribution (ms) of consume start minus due time, for time-based topics.</li>
 * </ul>
 */
public final class MicrometerRmqMetrics implements RmqMetrics {

    private final MeterRegistry registry;
    /** Meters once registered, so the consumer loop does not build and look one up per message. */
    private final ConcurrentMap<MeterKey, Object> meters = new ConcurrentHashMap<>();

    private record MeterKey(String name, String topic, @Nullable String result) {
    }

    public MicrometerRmqMetrics(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("a MeterRegistry is required");
        }
        this.registry = registry;
    }

    @Override
    public void sent(TopicDefinition topic, int messages, int merged, long nanos, @Nullable Throwable error) {
        String result = error == null ? "success" : "failure";
        meter("rmq.send", topic, result, () -> Timer.builder("rmq.send").description("Send calls (a batch is one call)")
                .tags("topic", topic.name(), "type", type(topic), "result", result)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
        sentMessages(topic, result).increment(messages);
        if (merged > 0) {
            merges(topic).increment(merged);
        }
    }

    /**
     * Starts at zero the meters a dashboard reads for every topic: sends, merges, handled messages, retries, dead,
     * recovered leases, stale acks, the lateness of a time-based topic, and Redis outages as its consumers and the
     * producer see them. The rest appear with their first event.
     */
    @Override
    public void topicDefined(TopicDefinition topic) {
        sentMessages(topic, "success");
        merges(topic);
        consumeTimer(topic, "success");
        for (AckOutcome outcome : List.of(AckOutcome.RETRY, AckOutcome.DEAD, AckOutcome.STALE)) {
            acknowledgements(topic, outcome);
        }
        recoveredLeases(topic);
        if (topic.type() != TopicType.PRIORITY) {
            latenessSummary(topic);
        }
        outages("consumer", topic.name());
        outages("producer", "");
    }

    private Counter sentMessages(TopicDefinition topic, String result) {
        return counter("rmq.send.messages", "Messages sent", topic, result);
    }

    private Counter merges(TopicDefinition topic) {
        return counter("rmq.merges", "Sends that merged into a waiting message", topic, null);
    }

    @Override
    public void redisOutage(String who, @Nullable String topic, Duration length) {
        Counter[] counters = outages(who, topic == null ? "" : topic);
        counters[0].increment();
        counters[1].increment(length.toNanos() / 1e9);
    }

    /** The outage count and the outage seconds of one who and topic. */
    private Counter[] outages(String who, String topic) {
        return new Counter[] {
                Counter.builder("rmq.redis.outages").description("Outages of Redis as a container or the producer saw"
                        + " them").tags("who", who, "topic", topic).register(registry),
                Counter.builder("rmq.redis.outage.seconds").description("How long those outages lasted, in seconds")
                        .tags("who", who, "topic", topic).register(registry)};
    }

    @Override
    public void refused(TopicDefinition topic, int messages) {
        counter("rmq.send.refused", "Messages refused because the slot's backlog was full", topic, null)
                .increment(messages);
    }

    @Override
    public void scheduleTicks(String schedule, String topic, long ticks) {
        Counter.builder("rmq.schedule.ticks").description("Messages of recurring schedules' ticks sent")
                .tags("schedule", schedule, "topic", topic).register(registry).increment(ticks);
    }

    @Override
    public void scheduleMisfires(String schedule, String topic, String policy, long ticks) {
        Counter.builder("rmq.schedule.misfires").description("Ticks that fell while no application ran the schedule")
                .tags("schedule", schedule, "topic", topic, "policy", policy).register(registry).increment(ticks);
    }

    @Override
    public void scheduleSkipped(String schedule, String topic, long ticks) {
        Counter.builder("rmq.schedule.skipped").description("Ticks dropped while the previous tick was in flight")
                .tags("schedule", schedule, "topic", topic).register(registry).increment(ticks);
    }

    @Override
    public void scheduleLateness(String schedule, TopicDefinition topic, long millis) {
        DistributionSummary.builder("rmq.schedule.lateness").baseUnit("milliseconds")
                .description("Consume start of a schedule's tick minus the tick's instant, by the Redis clock")
                .tags("schedule", schedule, "topic", topic.name()).publishPercentileHistogram().register(registry)
                .record(Math.max(0, millis));
    }

    @Override
    public void duplicate(TopicDefinition topic, SendReceipt.Outcome outcome) {
        String result = outcome.name().toLowerCase(Locale.ROOT);
        counter("rmq.send.duplicates", "Sends their repeated-key rule left out (result kept or throttled)", topic,
                result).increment();
    }

    @Override
    public void sentLate(TopicDefinition topic, long millis) {
        meter("rmq.send.late", topic, null, () -> DistributionSummary.builder("rmq.send.late").baseUnit("milliseconds")
                .description("How far behind the Redis clock a fixed time was when it arrived (due at once)")
                .tags("topic", topic.name(), "type", type(topic)).register(registry)).record(millis);
    }

    @Override
    public void expired(TopicDefinition topic, long messages) {
        if (messages > 0) {
            String result = topic.expiry() == ExpiryAction.DEAD ? "dead" : "dropped";
            counter("rmq.expired", "Messages whose time to live ran out before a delivery", topic, result)
                    .increment(messages);
        }
    }

    @Override
    public void consumed(TopicDefinition topic, ConsumeResult.Outcome outcome, long nanos) {
        consumeTimer(topic, outcome.name().toLowerCase(Locale.ROOT)).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer consumeTimer(TopicDefinition topic, String result) {
        return meter("rmq.consume", topic, result, () -> Timer.builder("rmq.consume")
                .description("Messages handled by listeners")
                .tags("topic", topic.name(), "type", type(topic), "result", result).register(registry));
    }

    @Override
    public void lateness(TopicDefinition topic, long millis) {
        latenessSummary(topic).record(Math.max(0, millis));
    }

    private DistributionSummary latenessSummary(TopicDefinition topic) {
        return meter("rmq.lateness", topic, null, () -> DistributionSummary.builder("rmq.lateness")
                .baseUnit("milliseconds").description("Consume start minus due time, by the Redis clock")
                .tags("topic", topic.name(), "type", type(topic)).publishPercentileHistogram().register(registry));
    }

    @Override
    public void acknowledged(TopicDefinition topic, AckOutcome outcome) {
        if (outcome == AckOutcome.EXPIRED) {
            expired(topic, 1);
            return;
        }
        Counter counter = acknowledgements(topic, outcome);
        if (counter != null) {
            counter.increment();
        }
    }

    /** The counter of one outcome of an acknowledgement; null for those counted elsewhere or not at all. */
    private @Nullable Counter acknowledgements(TopicDefinition topic, AckOutcome outcome) {
        return switch (outcome) {
            case RETRY -> counter("rmq.retries", "Messages rolled back for a retry", topic, null);
            case DEAD -> counter("rmq.dead", "Messages moved to the dead queue", topic, null);
            case STALE -> counter("rmq.ack.stale", "Acks refused because the lease was lost", topic, null);
            case CANCELLED -> counter("rmq.ack.cancelled", "Deliveries ended after a cancel removed them in flight",
                    topic, null);
            case RELEASED -> counter("rmq.released", "Messages handed back without an attempt: by the handler or the"
                    + " program, or unstarted at a stop", topic, null);
            default -> null;
        };
    }

    @Override
    public void recovered(TopicDefinition topic, long leases) {
        if (leases > 0) {
            recoveredLeases(topic).increment(leases);
        }
    }

    private Counter recoveredLeases(TopicDefinition topic) {
        return counter("rmq.lease.recovered", "Expired leases recovered as failures", topic, null);
    }

    private Counter counter(String name, String description, TopicDefinition topic, @Nullable String result) {
        return meter(name, topic, result, () -> {
            Counter.Builder builder = Counter.builder(name).description(description)
                    .tags("topic", topic.name(), "type", type(topic));
            if (result != null) {
                builder.tag("result", result);
            }
            return builder.register(registry);
        });
    }

    @SuppressWarnings("unchecked")
    private <M> M meter(String name, TopicDefinition topic, @Nullable String result, Supplier<M> register) {
        return (M) meters.computeIfAbsent(new MeterKey(name, topic.name(), result), key -> register.get());
    }

    private static String type(TopicDefinition topic) {
        return topic.type().name().toLowerCase(Locale.ROOT);
    }
}
