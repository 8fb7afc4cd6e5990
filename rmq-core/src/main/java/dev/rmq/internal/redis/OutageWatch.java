package dev.rmq.internal.redis;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Whether one user of Redis (a container, a producer) can reach it, from its own calls: an outage begins with
 * the first call that failed for want of Redis, or that has waited for its reply, and is declared once it has
 * lasted the threshold. Then one WARN line, and one INFO line with its length when a call succeeds again: never
 * a line per call or per worker, however many fail meanwhile. Calls that Redis answered with an error of its
 * own are no outage. {@link OutageWatches} checks every watch on one ticker, since a call that hangs cannot
 * report itself. Thread-safe.
 */
public final class OutageWatch {

    private final String subject;
    private final String doing;
    private final long thresholdNanos;
    private final Logger log;
    private final Consumer<Duration> onEnded;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Long> pending = new ConcurrentHashMap<>();
    /**
     * When the first call of the current trouble failed or began, 0 when there is none. Volatile, so that a
     * success, which is nearly every call, checks it without taking the lock.
     */
    private volatile long troubleSinceNanos;
    private long declaredAtNanos;
    /**
     * When the last trouble ended. A call that began before then and still waits is a leftover of that trouble,
     * whose late reply is on its way, not the start of a new one.
     */
    private long endedAtNanos = System.nanoTime();
    /** When a call last succeeded: a failure of a call that began before it is old news. */
    private volatile long lastSuccessNanos = System.nanoTime();
    private long failedCalls;
    /** What the last call of the current trouble failed with; null when there is none, or only waits. */
    private @Nullable Throwable lastCause;

    /**
     * @param subject   who calls, for the log: "container orders-1 of topic orders"
     * @param doing     what it does meanwhile, for the WARN line: "it polls again every few seconds"
     * @param threshold how long calls must have failed or waited before the outage is declared
     * @param onEnded   told the length of every declared outage once it ends (metrics)
     */
    OutageWatch(String subject, String doing, Duration threshold, Logger log, Consumer<Duration> onEnded) {
        this.subject = subject;
        this.doing = doing;
        this.thresholdNanos = threshold.toNanos();
        this.log = log;
        this.onEnded = onEnded;
    }

    /** A call begins; pass the id to {@link #succeeded(long)} or {@link #failed(long, Throwable)}. */
    public long begin() {
        long id = ids.incrementAndGet();
        pending.put(id, System.nanoTime());
        return id;
    }

    public void succeeded(long id) {
        pending.remove(id);
        lastSuccessNanos = System.nanoTime();
        if (troubleSinceNanos == 0) {
            return;
        }
        long length;
        long failed;
        synchronized (this) {
            if (troubleSinceNanos == 0 || stillStuck(System.nanoTime())) {
                // one reply while another call still waits past the threshold does not end the outage
                return;
            }
            length = declaredAtNanos == 0 ? -1 : System.nanoTime() - troubleSinceNanos;
            failed = failedCalls;
            troubleSinceNanos = 0;
            declaredAtNanos = 0;
            endedAtNanos = System.nanoTime();
            failedCalls = 0;
            lastCause = null;
        }
        if (length >= 0) {
            log.info("{}: Redis answers again; the outage lasted {} ({} call(s) failed)", subject, seconds(length), failed);
            onEnded.accept(Duration.ofNanos(length));
        }
    }

    /** Whether a call still pending has waited for its reply longer than the threshold. */
    private boolean stillStuck(long nowNanos) {
        for (long started : pending.values()) {
            if (nowNanos - started >= thresholdNanos) {
                return true;
            }
        }
        return false;
    }

    /** A call ended: with a reply when {@code error} is null, else as {@link #failed(long, Throwable)} says. */
    public void settle(long id, @Nullable Throwable error) {
        if (error == null) {
            succeeded(id);
        } else {
            failed(id, error);
        }
    }

    /** A call ended without a reply: an outage when Redis could not be reached, nothing otherwise. */
    public void failed(long id, Throwable error) {
        Long started = pending.remove(id);
        if (!isUnreachable(error)) {
            return;
        }
        synchronized (this) {
            long since = started != null ? started : System.nanoTime();
            if (since - lastSuccessNanos < 0) {
                return;
            }
            failedCalls++;
            lastCause = error;
            if (troubleSinceNanos == 0 || since - troubleSinceNanos < 0) {
                troubleSinceNanos = since;
            }
        }
    }

    /** Declares the outage once it has lasted the threshold; called by the ticker. */
    void check(long nowNanos) {
        long since;
        long failed;
        Throwable cause;
        synchronized (this) {
            since = troubleSinceNanos;
            for (long started : pending.values()) {
                if (nowNanos - started >= thresholdNanos && started - endedAtNanos > 0
                        && (since == 0 || started - since < 0)) {
                    since = started;
                }
            }
            if (since == 0 || declaredAtNanos != 0 || nowNanos - since < thresholdNanos) {
                return;
            }
            troubleSinceNanos = since;
            declaredAtNanos = nowNanos;
            failed = failedCalls;
            cause = lastCause;
        }
        log.warn("{}: Redis has not answered for {} ({}); {}", subject, seconds(nowNanos - since),
                cause == null ? "calls are waiting for a reply" : failed + " call(s) failed, the last with " + cause,
                doing);
    }

    /** How long the declared outage has lasted, or empty when there is none. */
    public synchronized Optional<Duration> outage() {
        return declaredAtNanos == 0 ? Optional.empty()
                : Optional.of(Duration.ofNanos(System.nanoTime() - troubleSinceNanos));
    }

    /** Whether a call failed for want of Redis (down, unreachable, too slow), not because Redis refused it. */
    public static boolean isUnreachable(Throwable error) {
        return RedisFailures.unreachableCause(error) != null;
    }

    /**
     * The first of the failures of a call's parts ({@code error} of a part, null for one that succeeded) that was for
     * want of Redis, or null: a part that Redis answered with an error (a script's refusal, READONLY, LOADING) was
     * still answered, so a call whose parts failed only that way settles its watch as answered.
     */
    public static <T> @Nullable Throwable firstUnreachable(List<T> parts,
                                                           Function<? super T, ? extends @Nullable Throwable> error) {
        // a loop, not a stream: a lone send settles its watch on every call
        for (T part : parts) {
            Throwable failure = error.apply(part);
            if (failure != null && isUnreachable(failure)) {
                return failure;
            }
        }
        return null;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
