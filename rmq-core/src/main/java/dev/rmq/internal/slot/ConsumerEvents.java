package dev.rmq.internal.slot;

import dev.rmq.events.RmqEvent;
import dev.rmq.events.RmqEventListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/** Hands events to the application's listener, built only when there is one, and never lets it break a worker. */
public final class ConsumerEvents {

    private static final Logger log = LoggerFactory.getLogger(ConsumerEvents.class);

    private final RmqEventListener listener;

    public ConsumerEvents(RmqEventListener listener) {
        this.listener = listener;
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
            log.warn("the rmq event listener failed on an event; the event is dropped: {}", e.toString());
        }
    }
}
