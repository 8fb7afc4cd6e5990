package dev.rmq.schedule;

import dev.rmq.topic.Names;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A recurring message: each tick of {@link #rule()} becomes one message on {@link #topic()}, a FIXED_TIME topic,
 * due at the tick's instant, whatever the number of applications that declare the schedule. The tick's message has
 * the key {@code <name>@<tick in epoch ms>} and the schedule's name as its slot basis, and carries the headers
 * {@value #SCHEDULE_HEADER} and {@value #TICK_HEADER} (the tick's instant, ISO-8601) besides its own.
 *
 * <p>Only FIXED_TIME topics take schedules: a tick is a point in time, which is what their messages are due at.
 * A range-merge message would be due a range after the tick, and a priority message at once, however the ticks
 * fall.
 */
public final class RecurringSchedule {

    /** The header that names the schedule of a tick's message. */
    public static final String SCHEDULE_HEADER = "rmq-schedule";
    /** The header that gives the tick's instant, ISO-8601, which the message was due at (unless it caught up). */
    public static final String TICK_HEADER = "rmq-tick";

    private final String name;
    private final String topic;
    private final TickRule rule;
    private final Supplier<?> payload;
    private final Map<String, String> headers;
    private final Misfire misfire;
    private final Overlap overlap;

    private RecurringSchedule(Builder b) {
        this.name = Names.check("schedule name", b.name);
        this.topic = Names.check("topic of schedule '" + name + "'", b.topic);
        this.rule = Objects.requireNonNull(b.rule, "schedule '" + name + "' needs a rule: TickRule.every(Duration),"
                + " or a cron expression through a parser");
        this.payload = Objects.requireNonNull(b.payload, "schedule '" + name + "' needs a payload, or a supplier of one");
        this.headers = Map.copyOf(b.headers);
        this.misfire = Objects.requireNonNull(b.misfire, "misfire policy of schedule '" + name + "' must not be null");
        this.overlap = Objects.requireNonNull(b.overlap, "overlap policy of schedule '" + name + "' must not be null");
    }

    /** Starts a schedule: its name, its FIXED_TIME topic and its rule. */
    public static Builder builder(String name, String topic, TickRule rule) {
        return new Builder(name, topic, rule);
    }

    public String name() {
        return name;
    }

    public String topic() {
        return topic;
    }

    public TickRule rule() {
        return rule;
    }

    /** The payload of the next tick's message: the fixed one, or what the supplier gives now. */
    public Object nextPayload() {
        Object next = payload.get();
        if (next == null) {
            throw new IllegalStateException("the payload supplier of schedule '" + name + "' gave null");
        }
        return next;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public Misfire misfire() {
        return misfire;
    }

    public Overlap overlap() {
        return overlap;
    }

    /**
     * What applications that run the schedule at once must agree on, as text: its topic, rule and policies. Two
     * definitions of one name that differ in it are reported; the payload is left out, since a supplier's differs
     * from tick to tick.
     */
    public String fingerprint() {
        return topic + "|" + rule.describe() + "|" + misfire + "|" + overlap;
    }

    /** The headers of one tick's message: the schedule's own, its name and the tick's instant. */
    public Map<String, String> headersOf(Instant tick) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put(SCHEDULE_HEADER, name);
        all.put(TICK_HEADER, tick.toString());
        return all;
    }

    /** The key of one tick's message. */
    public String keyOf(Instant tick) {
        return name + "@" + tick.toEpochMilli();
    }

    @Override
    public String toString() {
        return "Schedule[" + name + ", " + fingerprint() + "]";
    }

    /** Collects a schedule; {@link #build()} checks it. */
    public static final class Builder {
        private final String name;
        private final String topic;
        private final TickRule rule;
        private Supplier<?> payload = () -> "";
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Misfire misfire = Misfire.FIRE_ONCE;
        private Overlap overlap = Overlap.DELAY;

        private Builder(String name, String topic, TickRule rule) {
            this.name = name;
            this.topic = topic;
            this.rule = rule;
        }

        /** The payload of every tick; an empty string by default. */
        public Builder payload(Object value) {
            if (value == null) {
                throw new IllegalArgumentException("the payload of schedule '" + name + "' must not be null");
            }
            this.payload = () -> value;
            return this;
        }

        /** Computes each tick's payload when its message is sent, in the application that sends it. */
        public Builder payloadSupplier(Supplier<?> supplier) {
            if (supplier == null) {
                throw new IllegalArgumentException("the payload supplier of schedule '" + name + "' must not be null");
            }
            this.payload = supplier;
            return this;
        }

        public Builder header(String header, String value) {
            if (header == null || header.isEmpty() || value == null) {
                throw new IllegalArgumentException("a header of schedule '" + name + "' needs a name and a value,"
                        + " was " + header + "=" + value);
            }
            headers.put(header, value);
            return this;
        }

        /** {@link Misfire#FIRE_ONCE} by default. */
        public Builder misfire(Misfire value) {
            this.misfire = value;
            return this;
        }

        /** {@link Overlap#DELAY} by default. */
        public Builder overlap(Overlap value) {
            this.overlap = value;
            return this;
        }

        public RecurringSchedule build() {
            return new RecurringSchedule(this);
        }
    }
}
