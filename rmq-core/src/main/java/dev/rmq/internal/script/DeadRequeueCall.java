package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

/**
 * dead_requeue.lua: puts one dead message back to waiting, from attempt 0.
 *
 * @param type        the topic's type
 * @param key         the message key
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 */
public record DeadRequeueCall(TopicType type, String key, String wakeChannel, int slot)
        implements ScriptCall<DeadRequeueCall.Outcome> {

    /**
     * What became of the dead message, and the envelope it waits with when it was requeued.
     *
     * @param result   what became of it
     * @param envelope the envelope now waiting, from attempt 0, for a journal; empty unless requeued
     */
    public record Outcome(Result result, byte[] envelope) {
    }

    /** What became of the dead message. */
    public enum Result {
        /** It was not in the dead queue. */
        NOT_DEAD,
        /** It waits again. */
        REQUEUED,
        /** A newer message with its key was already waiting; the dead one was dropped. */
        SUPERSEDED
    }

    static final Argv<DeadRequeueCall> ARGV = Argv.<DeadRequeueCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("key", DeadRequeueCall::key)
            .arg("wake_channel", DeadRequeueCall::wakeChannel)
            .arg("slot", DeadRequeueCall::slot)
            .build();

    static final Reply<Outcome> REPLY = Reply.of(Reply.fields().word("outcome",
            Reply.words(Result.values(), result -> result.name().toLowerCase(java.util.Locale.ROOT)))
                    .bytes("envelope"),
            head -> new Outcome(head.word("outcome"), head.bytes("envelope")));

    @Override
    public Script script() {
        return Script.DEAD_REQUEUE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Outcome decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
