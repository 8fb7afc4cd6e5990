package dev.rmq.internal.script;

/**
 * A time of the Redis clock that a script wrote (a range-merge's due time, an expiry, a retry's backoff), compared
 * between two sides of a test that made the same calls a moment apart. Two such times are alike within
 * {@link #TOLERANCE_MS}: close enough for calls made back to back on a loaded machine, and well under the
 * {@link SendMessages#value} steps, so a script that kept the wrong one of two values still shows. Rounding both to a
 * coarser unit would not do: a boundary of that unit can fall between the two sides.
 */
record ClockTime(long ms) {

    static final long TOLERANCE_MS = 3_000;

    static ClockTime of(double score) {
        return new ClockTime(Math.round(score));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClockTime time && Math.abs(time.ms - ms) <= TOLERANCE_MS;
    }

    /** Constant, since times alike within the tolerance must hash alike. */
    @Override
    public int hashCode() {
        return 0;
    }

    @Override
    public String toString() {
        return "~" + ms;
    }
}
