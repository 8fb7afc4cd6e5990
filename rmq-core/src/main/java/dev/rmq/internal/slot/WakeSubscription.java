package dev.rmq.internal.slot;

import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The subscription to a topic's wake-up channel, on which a send publishes the slot it made due earlier than
 * the planned poll. Wake-ups only spare the idle poll, so a container starts even while Redis is down; the
 * subscription keeps trying in the background until it works or is closed.
 */
public final class WakeSubscription {

    private static final Logger log = LoggerFactory.getLogger(WakeSubscription.class);

    /**
     * How long a consumer woken for another zone's slot waits before it polls, when no coordination assigns slots:
     * that zone's own consumers take the message first, and this one only if they have not.
     */
    public static final long FOREIGN_ZONE_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final RedissonClient redisson;
    private final String channel;
    private volatile int listener = -1;
    /** Whether wake-ups are wanted: from open until close. */
    private volatile boolean wanted;

    public WakeSubscription(RedissonClient redisson, String channel) {
        this.redisson = redisson;
        this.channel = channel;
    }

    /** Subscribes; {@code onWake} gets each slot index published. */
    public void open(String container, Duration idlePoll, IntConsumer onWake) {
        open(container, idlePoll, onWake, other -> { });
    }

    /** Subscribes; {@code onWake} gets each slot index published, {@code onOther} every other message. */
    public void open(String container, Duration idlePoll, IntConsumer onWake, Consumer<String> onOther) {
        wanted = true;
        subscribe(container, idlePoll, onWake, onOther);
    }

    /** Publishes a message on the channel, for every subscriber; a failure is only logged, as a lost wake-up is. */
    public void publish(String message) {
        try {
            topic().publishAsync(message).whenComplete((receivers, error) -> {
                if (error != null) {
                    log.debug("a notice on {} was not published: {}", channel, error.toString());
                }
            });
        } catch (RuntimeException e) {
            log.debug("a notice on {} was not published: {}", channel, e.toString());
        }
    }

    public void close() {
        wanted = false;
        int current = listener;
        listener = -1;
        if (current >= 0) {
            topic().removeListenerAsync(current);
        }
    }

    private void subscribe(String container, Duration idlePoll, IntConsumer onWake, Consumer<String> onOther) {
        CompletableFuture<Integer> subscribed;
        try {
            subscribed = topic().addListenerAsync(String.class, (ch, text) -> received(text, onWake, onOther))
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            subscribed = CompletableFuture.failedFuture(e);
        }
        subscribed.whenComplete((id, error) -> {
            if (error == null) {
                listener = id;
                if (!wanted) {
                    topic().removeListenerAsync(id);
                }
            } else if (wanted) {
                log.warn("container {}: cannot subscribe to wake-ups yet ({}); idle slots are polled every {} until"
                        + " it works", container, error.toString(), idlePoll);
                CompletableFuture.delayedExecutor(5, TimeUnit.SECONDS).execute(() -> {
                    if (wanted) {
                        subscribe(container, idlePoll, onWake, onOther);
                    }
                });
            }
        });
    }

    private static void received(String text, IntConsumer onWake, Consumer<String> onOther) {
        int slot;
        try {
            slot = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            // not a slot index: a notice, for those who read them
            onOther.accept(text);
            return;
        }
        onWake.accept(slot);
    }

    private RTopic topic() {
        return redisson.getTopic(channel, StringCodec.INSTANCE);
    }
}
