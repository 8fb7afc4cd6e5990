package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;

/**
 * What this application's own meters have counted of a topic since it started, for the charts' rates and lateness:
 * its sends, what its listeners consumed, and its deliveries' lateness. Other applications' sends and consumes are
 * in their own meters. Without Micrometer there is nothing to read.
 */
interface ConsoleMeters {

    ConsoleMeters NONE = topic -> null;

    /** The topic's totals now, or null when no meter counts them. */
    @Nullable Totals read(String topic);

    /**
     * @param sent           messages sent, in all
     * @param consumed       messages the listeners handled, in all
     * @param latenessBounds the lateness histogram's bucket bounds in ms, ascending; empty without one
     * @param latenessCounts how many deliveries were at most each bound late, in all (cumulative)
     */
    record Totals(double sent, double consumed, double[] latenessBounds, double[] latenessCounts) {
    }

    /**
     * The 99th percentile of the lateness recorded between two readings, in ms (the bound of the bucket that holds
     * it), or -1 when nothing was delivered between them.
     */
    static long latenessP99(Totals before, Totals now) {
        double[] bounds = now.latenessBounds();
        if (bounds.length == 0 || before.latenessCounts().length != bounds.length) {
            return -1;
        }
        double total = now.latenessCounts()[bounds.length - 1] - before.latenessCounts()[bounds.length - 1];
        if (total <= 0) {
            return -1;
        }
        for (int i = 0; i < bounds.length; i++) {
            if (now.latenessCounts()[i] - before.latenessCounts()[i] >= 0.99 * total) {
                return (long) Math.ceil(bounds[i]);
            }
        }
        return (long) Math.ceil(bounds[bounds.length - 1]);
    }
}
