package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

import java.util.List;

/**
 * counts.lua: how many messages of one slot are where.
 *
 * @param type        the topic's type
 * @param verifyLimit the most entries of the retry index checked against their envelopes
 */
public record CountsCall(TopicType type, int verifyLimit) implements ScriptCall<CountsCall.Counted> {

    /** The slot's counts, as counts.lua returns them. */
    public record Counted(long dueNow, long later, long retrying, long parked, long inFlight, long dead,
                          boolean paused) {
    }

    static final Argv<CountsCall> ARGV = Argv.<CountsCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("verify_limit", CountsCall::verifyLimit)
            .build();

    @Override
    public Script script() {
        return Script.COUNTS;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Counted decode(Object reply) {
        List<Object> n = Replies.list(reply);
        return new Counted(Replies.number(n.get(0)), Replies.number(n.get(1)), Replies.number(n.get(2)),
                Replies.number(n.get(3)), Replies.number(n.get(4)), Replies.number(n.get(5)),
                Replies.number(n.get(6)) == 1);
    }
}
