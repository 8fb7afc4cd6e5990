package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

/**
 * dead_requeue_all.lua: puts up to {@code limit} of the oldest dead messages back to waiting; yields how
 * many it took (call again until fewer than the limit come back).
 *
 * @param type        the topic's type
 * @param limit       the most messages to move in this call
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 */
public record DeadRequeueAllCall(TopicType type, int limit, String wakeChannel, int slot) implements ScriptCall<Long> {

    static final Argv<DeadRequeueAllCall> ARGV = Argv.<DeadRequeueAllCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("limit", DeadRequeueAllCall::limit)
            .arg("wake_channel", DeadRequeueAllCall::wakeChannel)
            .arg("slot", DeadRequeueAllCall::slot)
            .build();

    static final Reply<Long> REPLY = Reply.of(Reply.fields().number("taken"), head -> head.number("taken"));

    @Override
    public Script script() {
        return Script.DEAD_REQUEUE_ALL;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Long decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
