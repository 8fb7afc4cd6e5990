package dev.rmq.internal.script;

import java.util.List;

/**
 * schedule_state.lua: reads, pauses, resumes or clears a recurring schedule's state, withdrawing the named tick
 * messages that still wait on a pause or a clear.
 *
 * @param name the schedule
 * @param op   what to do
 * @param keys the keys of its tick messages that may wait
 */
public record ScheduleStateCall(String name, Op op, List<String> keys) implements ScriptCall<ScheduleStateCall.State> {

    /** What the call does. */
    public enum Op {
        READ('R'), PAUSE('P'), RESUME('U'), CLEAR('X');

        private final char code;

        Op(char code) {
            this.code = code;
        }
    }

    /**
     * @param lastMs      the latest tick accounted for, 0 for none
     * @param paused      whether it is paused
     * @param withdrawn   tick messages withdrawn
     * @param fingerprint the definition recorded by the latest tick's call, empty for none
     */
    public record State(long lastMs, boolean paused, long withdrawn, String fingerprint) {
    }

    static final Argv<ScheduleStateCall> ARGV = Argv.<ScheduleStateCall>builder()
            .arg("name", ScheduleStateCall::name)
            .arg("op", call -> call.op().code)
            .rows("keys", ScheduleStateCall::keys, Argv.<String>builder().arg("key", key -> key).build())
            .build();

    static final Reply<State> REPLY = Reply.of(Reply.fields().number("last_ms").flag("paused").number("withdrawn")
                    .text("fingerprint"),
            head -> new State(head.number("last_ms"), head.flag("paused"), head.number("withdrawn"),
                    head.text("fingerprint")));

    @Override
    public Script script() {
        return Script.SCHEDULE_STATE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public State decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
