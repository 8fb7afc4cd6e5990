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
                          boolean paused, long dueAgeMs, String fence) {
    }

    static final Argv<CountsCall> ARGV = Argv.<CountsCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("verify_limit", CountsCall::verifyLimit)
            .build();

    static final Reply<Counted> REPLY = Reply.of(Reply.fields().number("due_now").number("later")
                    .number("retrying").number("parked").number("in_flight").number("dead").flag("paused")
                    .number("due_age_ms").text("fence"),
            head -> new Counted(head.number("due_now"), head.number("later"), head.number("retrying"),
                    head.number("parked"), head.number("in_flight"), head.number("dead"), head.flag("paused"),
                    head.number("due_age_ms"), head.text("fence")));

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
        return REPLY.decode(script(), reply);
    }
}
