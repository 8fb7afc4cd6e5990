package dev.rmq.internal.observation;

import org.slf4j.Logger;

import java.util.concurrent.TimeUnit;

/**
 * Failures of the application's own callbacks that rmq calls beside its work (metrics, event listeners), which must
 * not break that work: each is logged at WARN, at most once every ten seconds, with how many came since the last
 * line, since a callback that throws usually throws on every call. Thread-safe.
 */
public final class CallbackFailures {

    private static final long LOG_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    /** What the callback is, for the log: "the rmq metrics com.example.MyMetrics". */
    private final String callback;
    /** What becomes of the call's work when the callback fails: "the figure is dropped". */
    private final String whatHappens;
    private long loggedNanos;
    private boolean logged;
    private int unlogged;

    /**
     * Failures of {@code callback}, which is {@code what} ("the rmq metrics"), logged to {@code log} with
     * {@code whatHappens} to the call's work.
     */
    public CallbackFailures(Logger log, String what, Object callback, String whatHappens) {
        this.log = log;
        // a lambda's class name says nothing to its author
        this.callback = callback.getClass().isHidden() ? what : what + " " + callback.getClass().getName();
        this.whatHappens = whatHappens;
    }

    /** The callback failed in {@code where} with {@code e}. */
    public void failed(String where, RuntimeException e) {
        int since;
        synchronized (this) {
            long now = System.nanoTime();
            if (logged && now - loggedNanos < LOG_NANOS) {
                unlogged++;
                return;
            }
            logged = true;
            loggedNanos = now;
            since = unlogged;
            unlogged = 0;
        }
        log.warn("{} failed in {}: {}; {}, and rmq goes on{}", callback, where, e.toString(), whatHappens,
                since > 0 ? " (" + since + " failure(s) more since the last report)" : "", e);
    }
}
