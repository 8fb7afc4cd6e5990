package dev.rmq.schedule;

/**
 * What a schedule does with the ticks that fell while no application ran it (or while Redis was out of reach):
 * {@link #FIRE_ONCE} (the default) sends one message for all of them, due at once; {@link #SKIP} sends none and
 * waits for the next tick; {@link #fireAll(int)} sends one for each, up to a bound, the most recent ones. A tick
 * counts as missed once it is more than a second past when an application comes to it; a restart that finds none
 * missed sends nothing extra.
 *
 * @param kind  which of the three
 * @param bound for {@code FIRE_ALL}, the most ticks sent at once; 1 otherwise
 */
public record Misfire(Kind kind, int bound) {

    /** The three policies. */
    public enum Kind {
        FIRE_ONCE, SKIP, FIRE_ALL
    }

    public static final Misfire FIRE_ONCE = new Misfire(Kind.FIRE_ONCE, 1);
    public static final Misfire SKIP = new Misfire(Kind.SKIP, 1);

    /** The most messages one catch-up may send. */
    public static final int MAX_BOUND = 10_000;

    public Misfire {
        if (kind == null) {
            throw new IllegalArgumentException("a misfire policy is FIRE_ONCE, SKIP or FIRE_ALL, was null");
        }
        if (kind == Kind.FIRE_ALL ? bound < 1 || bound > MAX_BOUND : bound != 1) {
            throw new IllegalArgumentException(kind == Kind.FIRE_ALL
                    ? "FIRE_ALL's bound must be 1.." + MAX_BOUND + ", was " + bound
                    : kind + " has no bound; was given " + bound);
        }
    }

    /** Every missed tick its own message, the latest {@code bound} of them. */
    public static Misfire fireAll(int bound) {
        return new Misfire(Kind.FIRE_ALL, bound);
    }

    @Override
    public String toString() {
        return kind == Kind.FIRE_ALL ? "FIRE_ALL(" + bound + ")" : kind.name();
    }
}
