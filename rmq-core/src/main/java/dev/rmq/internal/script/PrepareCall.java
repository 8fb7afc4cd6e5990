package dev.rmq.internal.script;

import dev.rmq.consumer.AckOutcome;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * prepare.lua: a consumer's poll of one slot.
 *
 * @param policy       the topic's retry policy, for the expired leases the poll recovers
 * @param batch        the most messages to take
 * @param leaseMs      the lease they get
 * @param fence        the worker's fencing token, empty when unfenced
 * @param idleMs       the longest an idle consumer waits before it polls again
 * @param recoverLimit the most expired leases to recover, and the most expired messages to remove
 * @param atMostOnce   whether taken messages leave Redis at once, with no lease
 * @param floor        null to take the most urgent messages up to a batch; else take only those at least as urgent as
 *                     this score (a priority at least it, or a due time at most it)
 * @param acks         deliveries of the slot to end before the poll, as {@link AckCall} would
 */
public record PrepareCall(RetryPolicy policy, int batch, long leaseMs, String fence, long idleMs, int recoverLimit,
                          boolean atMostOnce, @Nullable Long floor, List<AckCall.Ack> acks)
        implements ScriptCall<PrepareCall.Polled> {

    /** A poll that ends nothing first. */
    public PrepareCall(RetryPolicy policy, int batch, long leaseMs, String fence, long idleMs, int recoverLimit,
                       boolean atMostOnce, @Nullable Long floor) {
        this(policy, batch, leaseMs, fence, idleMs, recoverLimit, atMostOnce, floor, List.of());
    }

    /**
     * The poll's reply.
     *
     * @param token     the lease deadline in microseconds (Redis clock), which acks quote
     * @param waitMicros 0 when more may be due now, else how long until the next message is due, by the Redis
     *                   clock as the call ran
     * @param recovered the deliveries whose lease had run out, each ended as a failed attempt, in the order
     *                  recovered
     * @param expired   messages whose time to live ran out, removed
     * @param paused    whether the topic is paused (nothing was taken)
     * @param next      the score of the most urgent message left that is due now (a priority, or a due time in
     *                  epoch ms), null when none is
     * @param later     on a time-based topic, the due time (epoch ms) of the earliest message left when the wait
     *                  runs to it; null when one is due, none waits, the topic is paused, or a lease or the idle
     *                  poll ends the wait sooner
     * @param delayedMicros on a priority topic with a message due now ({@code next}): how long until its earliest
     *                  delayed message comes due, in µs by the Redis clock as the call ran; null when none is delayed
     * @param ended     the outcome of each of the call's acks, in order
     * @param messages  the messages taken, in consume order
     */
    public record Polled(long token, long waitMicros, List<Recovered> recovered, long expired, boolean paused,
                         @Nullable Long next, @Nullable Long later, @Nullable Long delayedMicros,
                         List<AckOutcome> ended, List<Message> messages) {
    }

    /**
     * A delivery whose lease ran out before it was ended, which the poll ended as a failed attempt.
     *
     * @param key     the message key
     * @param outcome what became of it: {@link AckOutcome#RETRY}, {@link AckOutcome#DEAD} (its last attempt),
     *                {@link AckOutcome#EXPIRED}, {@link AckOutcome#MERGED} (a newer send of its key waited and takes
     *                its place) or {@link AckOutcome#GONE}
     */
    public record Recovered(String key, AckOutcome outcome) {
    }

    /**
     * A message taken: its key and its envelope, with the attempt already counted, except on a first delivery sent
     * as it was stored, whose attempts 0 read as 1 ({@link dev.rmq.internal.redis.Envelope#deliveredAttempt}).
     */
    public record Message(String key, byte[] envelope) {
    }

    /** What a lease recovery can do to a delivery: a failed attempt's outcomes (see fail in lib.lua). */
    private static final Map<String, AckOutcome> RECOVERY_OUTCOMES = Reply.words(new AckOutcome[] {AckOutcome.RETRY,
            AckOutcome.DEAD, AckOutcome.EXPIRED, AckOutcome.MERGED, AckOutcome.GONE}, AckOutcome::scriptName);

    static final Reply<Polled> REPLY = Reply.of(
            Reply.fields().number("token").number("wait_us").number("expired").flag("paused")
                    .text("next").text("later").text("ended").text("delayed_us"),
            "messages", Reply.fields().text("key").bytes("envelope"),
            row -> new Message(row.text("key"), row.bytes("envelope")),
            head -> new Polled(head.number("token"), head.number("wait_us"), head.rows("recovered"),
                    head.number("expired"), head.flag("paused"), score(head.text("next")), score(head.text("later")),
                    score(head.text("delayed_us")), outcomes(head.text("ended")), head.rows()))
            .thenList("recovered", Reply.fields().text("key").word("outcome", RECOVERY_OUTCOMES),
                    row -> new Recovered(row.text("key"), row.word("outcome")));

    static final Argv<PrepareCall> ARGV = Argv.<PrepareCall>builder()
            .group("policy", PrepareCall::policy, RetryPolicy.ARGV)
            .arg("batch", PrepareCall::batch)
            .arg("lease_ms", PrepareCall::leaseMs)
            .arg("fence", PrepareCall::fence)
            .arg("idle_ms", PrepareCall::idleMs)
            .arg("recover_limit", PrepareCall::recoverLimit)
            .arg("at_most_once", call -> call.atMostOnce() ? "1" : "0")
            .arg("floor", call -> call.floor() == null ? "" : call.floor())
            .rows("acks", PrepareCall::acks, AckCall.ROW)
            .build();

    /** ack.lua's outcome words, separated by spaces. */
    private static List<AckOutcome> outcomes(String words) {
        if (words.isEmpty()) {
            return List.of();
        }
        List<AckOutcome> outcomes = new ArrayList<>();
        for (String word : words.split(" ")) {
            AckOutcome outcome = AckCall.OUTCOMES.get(word);
            if (outcome == null) {
                throw new IllegalStateException("prepare.lua replied '" + word + "' among its ended outcomes, which"
                        + " hold one of " + AckCall.OUTCOMES.keySet());
            }
            outcomes.add(outcome);
        }
        return outcomes;
    }

    /** A score as Redis writes it, '' for none. */
    private static @Nullable Long score(String text) {
        return text.isEmpty() ? null : (long) Double.parseDouble(text);
    }

    @Override
    public Script script() {
        return Script.PREPARE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Polled decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
