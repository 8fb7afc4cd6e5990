package dev.rmq.consumer;

import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Runs {@code concurrency} worker threads over a topic's slots, as a {@link SlotAssignment} hands them out,
 * and hands each message to its {@link RmqHandler}. Built with {@code RmqClient.container(...)}.
 *
 * <p>{@link #start()} and {@link #stop()} are safe to call from any thread and in any order; a stopped
 * container can be started again. A graceful stop stops popping, lets in-flight messages finish and commit
 * until the shutdown timeout, releases what was never started, and leaves anything still running after
 * that to lease recovery.
 *
 * @param <T> the payload type
 */
public interface RmqConsumerContainer<T> extends AutoCloseable {

    String id();

    TopicDefinition topic();

    ConsumerSettings settings();

    boolean isRunning();

    /** The slots this container's workers hold now. */
    Set<Integer> ownedSlots();

    /**
     * The slots still in this container's hands: those it owns, and those it is letting go of until their
     * in-flight message ends. Once a slot is out of this set, none of its handlers runs or starts here.
     */
    Set<Integer> heldSlots();

    /** The workers, as the assignment sees them. */
    List<SlotOwner> owners();

    /**
     * How long this container's calls have not reached Redis, once that lasted the client's outage threshold (2 s
     * by default); empty while Redis answers. Health checks report such a container as down.
     */
    Optional<Duration> redisOutage();

    void start();

    /**
     * Stops gracefully within {@link ConsumerSettings#shutdownTimeout()}, as {@link #stop(Duration)} does, and logs
     * one line that says what the stop did.
     */
    void stop();

    /**
     * Stops gracefully within {@code timeout}, whatever state Redis and ZooKeeper are in: stops taking messages,
     * lets the handlers in flight finish and acknowledges them, hands back what was never started, then gives
     * the slots back. Of the bound, the last quarter (at most 2 s) is kept for giving the slots back; a handler
     * still running when its share is over is interrupted: if it gives up on the interrupt, its message goes back
     * to waiting without counting an attempt; if it goes on, its message is left to lease recovery. Whatever Redis
     * or ZooKeeper do not take within the bound is left to expire by lease and session, which the design already
     * tolerates. It logs nothing of its own: the report says what it did, for the caller to log.
     */
    StopReport stop(Duration timeout);

    /** Stops gracefully, as {@link #stop()}. */
    @Override
    default void close() {
        stop();
    }
}
