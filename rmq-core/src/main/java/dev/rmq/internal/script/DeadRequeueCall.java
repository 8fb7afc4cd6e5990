package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

/**
 * dead_requeue.lua: puts one dead message back to waiting, from attempt 0.
 *
 * @param type        the topic's type
 * @param key         the message key
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param replacement an envelope whose headers and payload the message waits with instead of its own, or null
 * @param diedAtMs    with a replacement, when the dead message it was read from died; the requeue takes it only
 *                    while that message is the one in the dead queue
 */
public record DeadRequeueCall(TopicType type, String key, String wakeChannel, int slot, byte @Nullable [] replacement,
                              long diedAtMs) implements ScriptCall<DeadRequeueCall.Result> {

    /** Requeues the dead message as it died. */
    public DeadRequeueCall(TopicType type, String key, String wakeChannel, int slot) {
        this(type, key, wakeChannel, slot, null, 0);
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
            .arg("replacement", call -> call.replacement() == null ? new byte[0] : call.replacement())
            .arg("died_ms", call -> call.replacement() == null ? "" : Long.toString(call.diedAtMs()))
            .build();

    static final Reply<Result> REPLY = Reply.of(Reply.fields().word("outcome",
            Reply.words(Result.values(), result -> result.name().toLowerCase(java.util.Locale.ROOT))),
            head -> head.word("outcome"));

    @Override
    public Script script() {
        return Script.DEAD_REQUEUE;
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
