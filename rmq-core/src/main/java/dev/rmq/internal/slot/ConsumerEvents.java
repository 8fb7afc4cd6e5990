package dev.rmq.internal.slot;

import dev.rmq.events.RmqEvent;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.observation.CallbackFailures;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/** Hands events to the application's listener, built only when there is one, and never lets it break a worker. */
public final class ConsumerEvents {

    private final RmqEventListener listener;
    private final CallbackFailures failures;

    public ConsumerEvents(RmqEventListener listener) {
        this.listener = listener;
        this.failures = new CallbackFailures(LoggerFactory.getLogger(RmqEventListener.class),
                "the rmq event listener", listener, "the event is dropped");
    }

    /** Whether anyone listens: a caller about to emit one event per message asks first. */
    public boolean active() {
        return listener != RmqEventListener.NONE;
    }

    public void emit(Supplier<? extends RmqEvent> event) {
        if (listener == RmqEventListener.NONE) {
            return;
        }
        try {
            listener.onEvent(event.get());
        } catch (RuntimeException e) {
            failures.failed("onEvent", e);
        }
    }
}
