package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

import java.util.List;

/**
 * dead_requeue_all.lua: puts up to {@code limit} of the oldest dead messages back to waiting; yields how
 * many it took (call again until fewer than the limit come back).
 *
 * @param type        the topic's type
 * @param limit       the most messages to move in this call
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param report      whether to list the messages requeued, for a journal to record them
 */
public record DeadRequeueAllCall(TopicType type, int limit, String wakeChannel, int slot, boolean report)
        implements ScriptCall<DeadRequeueAllCall.Chunk> {

    /**
     * What one call moved.
     *
     * @param taken    the dead messages it took, at most the limit (those a newer message replaced included)
     * @param requeued with {@code report}, the ones that wait again; otherwise empty
     */
    public record Chunk(long taken, List<Requeued> requeued) {
    }

    /** A message waiting again, with the envelope it waits with. */
    public record Requeued(String key, byte[] envelope) {
    }

    static final Argv<DeadRequeueAllCall> ARGV = Argv.<DeadRequeueAllCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("limit", DeadRequeueAllCall::limit)
            .arg("wake_channel", DeadRequeueAllCall::wakeChannel)
            .arg("slot", DeadRequeueAllCall::slot)
            .arg("report", call -> call.report() ? "1" : "0")
            .build();

    static final Reply<Chunk> REPLY = Reply.of(Reply.fields().number("taken"), "requeued",
            Reply.fields().text("key").bytes("envelope"), row -> new Requeued(row.text("key"), row.bytes("envelope")),
            head -> new Chunk(head.number("taken"), head.rows()));

    @Override
    public Script script() {
        return Script.DEAD_REQUEUE_ALL;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Chunk decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
