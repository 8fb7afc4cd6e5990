package dev.rmq.internal.script;

import java.util.List;

/**
 * schedule_state.lua: reads, pauses, resumes or clears a recurring schedule's state, withdrawing on a pause or a clear
 * the named tick messages that were sent ahead of their tick and still wait.
 *
 * @param name  the schedule
 * @param op    what to do
 * @param ticks its ticks whose messages may wait
 */
public record ScheduleStateCall(String name, Op op, List<Tick> ticks) implements ScriptCall<ScheduleStateCall.State> {

    /** A tick, and the key of its message. */
    public record Tick(String key, long tickMs) {
    }

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
            .rows("ticks", ScheduleStateCall::ticks, Argv.<Tick>builder().arg("key", Tick::key)
                    .arg("tick_ms", tick -> Long.toString(tick.tickMs())).build())
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
