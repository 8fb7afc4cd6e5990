package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

import java.util.ArrayList;
import java.util.List;

/**
 * send.lua: adds or merges messages of one slot.
 *
 * @param type            the topic's type
 * @param wakeChannel     where idle consumers of the topic are woken
 * @param slot            the slot
 * @param maxBacklog      the most messages that may wait in the slot, 0 for no cap
 * @param lateToleranceMs how far behind the Redis clock a fixed time may lie and still be taken
 * @param messages        the messages, in order
 */
public record SendCall(TopicType type, String wakeChannel, int slot, int maxBacklog, long lateToleranceMs,
                       List<Message> messages) implements ScriptCall<List<SendCall.Result>> {

    /**
     * One message.
     *
     * @param key         the merge key
     * @param value       the time range (ms), the priority or the fixed time (epoch ms)
     * @param ttlMs       its time to live, 0 for none
     * @param notBeforeMs for a priority message, when it becomes visible: an epoch ms, a negative delay in ms from
     *                    the Redis clock, or 0 for at once
     * @param content     its headers and payload ({@code Envelope.encodeContent})
     */
    public record Message(String key, long value, long ttlMs, long notBeforeMs, byte[] content) {
    }

    /** What the script did with one message. */
    public enum Outcome {
        ADDED, MERGED, REFUSED
    }

    /**
     * @param outcome what became of the message
     * @param lateMs  how far behind the Redis clock its fixed time was, 0 when it was ahead
     */
    public record Result(Outcome outcome, long lateMs) {
    }

    static final Argv<SendCall> ARGV = Argv.<SendCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("wake_channel", SendCall::wakeChannel)
            .arg("slot", SendCall::slot)
            .arg("max_backlog", SendCall::maxBacklog)
            .arg("late_tolerance_ms", SendCall::lateToleranceMs)
            .rows("messages", SendCall::messages, Argv.<Message>builder()
                    .arg("key", Message::key)
                    .arg("value", Message::value)
                    .arg("ttl_ms", Message::ttlMs)
                    .arg("not_before_ms", Message::notBeforeMs)
                    .arg("content", Message::content)
                    .build())
            .build();

    @Override
    public Script script() {
        return Script.SEND;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public List<Result> decode(Object reply) {
        List<Object> pairs = Replies.list(reply);
        List<Result> results = new ArrayList<>(pairs.size() / 2);
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
            long code = Replies.number(pairs.get(i));
            Outcome outcome = code == 0 ? Outcome.ADDED : code == 1 ? Outcome.MERGED : Outcome.REFUSED;
            results.add(new Result(outcome, Replies.number(pairs.get(i + 1))));
        }
        return results;
    }
}
