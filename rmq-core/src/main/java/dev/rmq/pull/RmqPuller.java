package dev.rmq.pull;

import dev.rmq.consumer.AckOutcome;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A consumer that the program drives: {@link #poll(int, Duration, String...)} takes up to {@code count} due
 * messages from the puller's topics and hands them over under a lease, and the program ends each one
 * ({@link PulledMessage#ack()}, {@link PulledMessage#retry(String)}, ...) or several at once
 * ({@link #ackAll(Collection)}). A message not ended within its lease is delivered again, as with a listener.
 *
 * <p><b>Slots.</b> A puller is a consumer like a container: with ZooKeeper coordination it is a member of each of
 * its topics and takes only the slots assigned to it, so a slot still has one consumer in the whole cluster;
 * without it, it takes from every slot. It polls a slot again only once every message it handed out of that slot
 * was ended (or its lease ran out), so messages of one slot basis are still handled one batch after another.
 *
 * <p><b>Fairness.</b> A poll divides {@code count} between the topics asked for, in turn, and each topic's share
 * between its due slots, in turn; what one topic or slot does not use goes to the next. The first topic and slot
 * served rotate from one poll to the next, so a busy topic or slot never starves the others.
 *
 * <p><b>Waiting.</b> When nothing is due, a poll waits up to {@code timeout} for the first message, without
 * polling Redis in a loop: a send that makes a message due wakes it through the topic's wake-up channel, and it
 * polls again when the next known due time comes.
 *
 * <p>Thread-safe: polls from several threads are served one at a time (a waiting poll does not hold up others).
 * {@link #close()} hands back every message not yet ended, unstarted (its attempt not counted), and gives the
 * slots back. Obtained from {@code RmqClient.puller(...)}, and started with {@link #start()}.
 *
 * @param <T> the payload type
 */
public interface RmqPuller<T> extends AutoCloseable {

    /** The most messages one poll may ask for. */
    int MAX_COUNT = 10_000;

    /** Unique among the pullers and containers of this client; part of its member name in ZooKeeper. */
    String id();

    /** The topics this puller takes from. */
    Set<String> topics();

    /**
     * Joins the slot assignment of every topic. A puller starts once: a second call, or a call after
     * {@link #close()}, is refused.
     */
    void start();

    boolean isRunning();

    /** Up to {@code count} messages from any of the puller's topics; see {@link #poll(int, Duration, String...)}. */
    List<PulledMessage<T>> poll(int count, Duration timeout);

    /**
     * Up to {@code count} due messages from the given topics, at once when some are due; otherwise waits up to
     * {@code timeout} for the first and returns what is due then (possibly nothing).
     *
     * @param count   1 to {@value #MAX_COUNT}
     * @param timeout how long to wait when nothing is due; zero returns at once
     * @param topics  some of {@link #topics()}; none means all of them
     * @throws IllegalArgumentException for a count out of range, a negative timeout or a topic not of this puller
     * @throws IllegalStateException    before {@link #start()} or after {@link #close()}
     */
    List<PulledMessage<T>> poll(int count, Duration timeout, String... topics);

    /**
     * Acknowledges many messages at once, one call per slot: each message's outcome in the order given. A message
     * whose lease had run out is not acknowledged ({@link AckOutcome#STALE}) and will be delivered again.
     *
     * @throws IllegalArgumentException for a message not delivered by this puller, or one already ended
     * @throws dev.rmq.exceptions.RmqUnavailableException when the call of some slot failed (an {@link
     *         dev.rmq.exceptions.RmqException} when Redis refused it): every other slot's call is still made, and the
     *         message says what their messages came to. Whether those of a failed call were acknowledged is not
     *         known; all of them count as ended here, and those Redis did not acknowledge are delivered again once
     *         their leases run out
     */
    List<AckOutcome> ackAll(Collection<? extends PulledMessage<T>> messages);

    /**
     * Ends a delivery by its reference, whichever puller of the topic handed it out, in this process or another:
     * Redis's lease decides, so a reference whose lease ran out, or that another settle ended first, is refused.
     * A delivery of this puller is ended as its own method would end it; one of another puller is ended in Redis,
     * and that puller is told on the topic's wake-up channel, so that its slot is free at once. Should the notice
     * be lost, the slot waits for the lease to run out.
     *
     * @param reason why it failed: required for {@link Settlement#failure() failures}, ignored otherwise
     * @throws LeaseExpiredException    when the lease ran out or another settle came first: nothing was done
     * @throws IllegalArgumentException for a topic not of this puller, an at-most-once topic (its messages left
     *                                  Redis when taken: only the puller that holds them can settle them), or a
     *                                  failure without a reason
     */
    AckOutcome settle(DeliveryRef ref, Settlement how, @Nullable String reason);

    /**
     * Extends a delivery's lease by its reference, to {@code duration} from now by the Redis clock, whichever
     * puller handed it out.
     *
     * @return the reference of the extended delivery, whose lease deadline is the new one
     * @throws LeaseExpiredException     when the lease ran out or the delivery was settled
     * @throws dev.rmq.exceptions.MessageCancelledException when a cancel removed the delivery
     */
    DeliveryRef extend(DeliveryRef ref, Duration duration);

    /**
     * Records a delivery's progress by its reference, whichever puller handed it out, as {@link
     * dev.rmq.consumer.RmqMessage#reportProgress(int, String, Duration)} would, and extends its lease to
     * {@code extendLease} from now unless that is null.
     *
     * @return the reference of the delivery, whose lease deadline is the new one when it was extended
     * @throws IllegalArgumentException  when the percentage (0 to 100), the note or the extension is out of bounds
     * @throws LeaseExpiredException     when the lease ran out or the delivery was settled
     * @throws dev.rmq.exceptions.MessageCancelledException when a cancel removed the delivery
     */
    DeliveryRef reportProgress(DeliveryRef ref, int percent, String note, @Nullable Duration extendLease);

    /** The slots this puller holds now, by topic. */
    Map<String, Set<Integer>> ownedSlots();

    /** How many delivered messages have not been ended yet and still hold their lease. */
    int inFlight();

    /** Hands back what was not ended, gives the slots back, and refuses further polls. */
    @Override
    void close();
}
