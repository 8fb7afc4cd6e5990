package dev.rmq.spring.schedule;

import dev.rmq.schedule.Misfire;
import dev.rmq.schedule.Overlap;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.schedule.TickRule;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Recurring messages, {@code rmq.schedules.<name>.*}: each tick of a schedule becomes one message on its FIXED_TIME
 * topic, however many instances of the application declare it.
 *
 * @param schedules the schedules by name
 */
@ConfigurationProperties("rmq")
public record RmqScheduleProperties(Map<String, Schedule> schedules) {

    public RmqScheduleProperties {
        // unbound when no schedule is configured
        schedules = schedules == null ? Map.of() : Map.copyOf(schedules);
    }

    /**
     * One schedule.
     *
     * @param topic           The FIXED_TIME topic its ticks' messages go to.
     * @param cron            A cron expression in Spring's dialect (six fields, seconds first, as @Scheduled takes);
     *                        give this or every.
     * @param zone            The time zone the cron expression is read in; UTC by default.
     * @param every           A fixed rate, ticking at its multiples since the epoch (every: 5m ticks at :00, :05, ...);
     *                        give this or cron.
     * @param payload         The payload of each tick's message, as text; empty by default.
     * @param payloadSupplier The name of a bean of type java.util.function.Supplier that gives each tick's payload,
     *                        in place of payload.
     * @param headers         Headers of each tick's message, besides rmq-schedule and rmq-tick.
     * @param misfire         What ticks missed while no instance ran do: FIRE_ONCE (one message for all, the
     *                        default), SKIP (none), or FIRE_ALL (one each, up to misfire-bound).
     * @param misfireBound    With FIRE_ALL, the most missed ticks sent at once; 100 by default.
     * @param overlap         DELAY (the default): a tick waits for the previous one to end; SKIP: a tick that comes
     *                        while the previous one is in flight is dropped.
     */
    public record Schedule(@Nullable String topic, @Nullable String cron, @Nullable String zone,
                           @Nullable Duration every, @Nullable String payload, @Nullable String payloadSupplier,
                           @Nullable Map<String, String> headers, Misfire.@Nullable Kind misfire,
                           @Nullable Integer misfireBound, @Nullable Overlap overlap) {

        /**
         * The validated schedule, every mistake named by its property.
         *
         * @param suppliers finds the supplier bean of a name
         */
        public RecurringSchedule toSchedule(String name, Function<String, Supplier<?>> suppliers) {
            String at = "rmq.schedules." + name;
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException(at + ".topic is required: the FIXED_TIME topic its ticks go to");
            }
            if ((cron == null) == (every == null)) {
                throw new IllegalArgumentException(at + " needs cron or every, not " + (cron == null ? "neither"
                        : "both"));
            }
            if (zone != null && cron == null) {
                throw new IllegalArgumentException(at + ".zone is for cron; every counts from the epoch");
            }
            TickRule rule;
            try {
                rule = cron != null ? CronTicks.of(cron, zone == null ? "UTC" : zone) : TickRule.every(every);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at + "." + (cron != null ? "cron" : "every") + ": " + e.getMessage(),
                        e);
            }
            RecurringSchedule.Builder builder = RecurringSchedule.builder(name, topic, rule);
            if (payload != null && payloadSupplier != null) {
                throw new IllegalArgumentException(at + " takes payload or payload-supplier, not both");
            }
            if (payload != null) {
                builder.payload(payload);
            }
            if (payloadSupplier != null) {
                builder.payloadSupplier(suppliers.apply(payloadSupplier));
            }
            (headers == null ? new LinkedHashMap<String, String>() : headers).forEach(builder::header);
            Misfire.Kind kind = misfire == null ? Misfire.Kind.FIRE_ONCE : misfire;
            if (misfireBound != null && kind != Misfire.Kind.FIRE_ALL) {
                throw new IllegalArgumentException(at + ".misfire-bound is for misfire FIRE_ALL, and misfire is " + kind);
            }
            try {
                builder.misfire(kind == Misfire.Kind.FIRE_ALL ? Misfire.fireAll(misfireBound == null ? 100 : misfireBound)
                        : kind == Misfire.Kind.SKIP ? Misfire.SKIP : Misfire.FIRE_ONCE);
                return builder.overlap(overlap == null ? Overlap.DELAY : overlap).build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
            }
        }
    }
}
