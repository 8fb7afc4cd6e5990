package dev.rmq.spring.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import org.jspecify.annotations.Nullable;

/** The console's readings of the meters rmq registers in the application's {@link MeterRegistry}. */
final class MicrometerConsoleMeters implements ConsoleMeters {

    private final MeterRegistry registry;

    MicrometerConsoleMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public @Nullable Totals read(String topic) {
        double sent = registry.find("rmq.send.messages").tag("topic", topic).counters().stream()
                .mapToDouble(Counter::count).sum();
        double consumed = registry.find("rmq.consume").tag("topic", topic).timers().stream()
                .mapToDouble(Timer::count).sum();
        DistributionSummary lateness = registry.find("rmq.lateness").tag("topic", topic).summary();
        double[] bounds = new double[0];
        double[] counts = new double[0];
        if (lateness != null) {
            CountAtBucket[] buckets = lateness.takeSnapshot().histogramCounts();
            bounds = new double[buckets.length];
            counts = new double[buckets.length];
            for (int i = 0; i < buckets.length; i++) {
                bounds[i] = buckets[i].bucket();
                counts[i] = buckets[i].count();
            }
        }
        return new Totals(sent, consumed, bounds, counts);
    }
}
