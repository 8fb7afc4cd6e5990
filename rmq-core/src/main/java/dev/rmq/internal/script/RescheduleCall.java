package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

/**
 * reschedule.lua: gives a waiting message a new due time or priority; yields whether one was waiting.
 *
 * @param type        the topic's type
 * @param key         the message key
 * @param value       the new due time (epoch ms) or priority
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param lateToleranceMs how far behind the Redis clock a new fixed time may lie and still be taken
 */
public record RescheduleCall(TopicType type, String key, long value, String wakeChannel, int slot,
                             long lateToleranceMs) implements ScriptCall<Boolean> {

    static final Argv<RescheduleCall> ARGV = Argv.<RescheduleCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("key", RescheduleCall::key)
            .arg("value", RescheduleCall::value)
            .arg("wake_channel", RescheduleCall::wakeChannel)
            .arg("slot", RescheduleCall::slot)
            .arg("late_tolerance_ms", RescheduleCall::lateToleranceMs)
            .build();

    static final Reply<Boolean> REPLY = Reply.of(Reply.fields().flag("changed"), head -> head.flag("changed"));

    @Override
    public Script script() {
        return Script.RESCHEDULE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Boolean decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
