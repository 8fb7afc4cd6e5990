package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

/**
 * reschedule.lua: gives a waiting message a new due time or priority, or a priority message a new not-before time;
 * yields whether one was waiting, or that the new fixed time lay too far behind the Redis clock.
 *
 * @param type        the topic's type
 * @param key         the message key
 * @param notBefore   whether {@code value} is a priority message's not-before time rather than its score
 * @param value       the new due time (epoch ms), priority, or not-before time (epoch ms)
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param lateToleranceMs how far behind the Redis clock a new fixed time may lie and still be taken
 */
public record RescheduleCall(TopicType type, String key, boolean notBefore, long value, String wakeChannel, int slot,
                             long lateToleranceMs) implements ScriptCall<RescheduleCall.Result> {

    static final Argv<RescheduleCall> ARGV = Argv.<RescheduleCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("key", RescheduleCall::key)
            .arg("field", call -> call.notBefore() ? "not_before" : "score")
            .arg("value", RescheduleCall::value)
            .arg("wake_channel", RescheduleCall::wakeChannel)
            .arg("slot", RescheduleCall::slot)
            .arg("late_tolerance_ms", RescheduleCall::lateToleranceMs)
            .build();

    /** What the script did. */
    public enum Outcome {
        CHANGED, NOT_FOUND,
        /** Refused: the new fixed time lies further behind the Redis clock than the tolerance. */
        TOO_LATE
    }

    /**
     * @param outcome what the script did
     * @param lateMs  how far behind the Redis clock the new fixed time lies, 0 when it is ahead
     */
    public record Result(Outcome outcome, long lateMs) {
    }

    static final Reply<Result> REPLY = Reply.of(Reply.fields()
                    .word("outcome", Reply.words(Outcome.values(), o -> o.name().toLowerCase(java.util.Locale.ROOT)))
                    .number("late_ms"),
            head -> new Result(head.word("outcome"), head.number("late_ms")));

    @Override
    public Script script() {
        return Script.RESCHEDULE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Result decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
