package dev.rmq.internal.script;

import java.util.List;
import java.util.Map;

/**
 * schedule_tick.lua: sends the messages of a recurring schedule's ticks, each once, when the caller planned from
 * the latest tick Redis records.
 *
 * @param name        the schedule
 * @param wakeChannel where idle consumers of its topic are woken
 * @param slot        its slot
 * @param fingerprint its definition, as this application has it
 * @param basedOn     the latest tick (ms) the plan started from: 0 for none, -1 when not known
 * @param advanceTo   the latest tick (ms) the call accounts for
 * @param skipRunning whether a tick is dropped while the previous tick's message is in flight
 * @param ticks       the messages to send, in tick order
 */
public record ScheduleTickCall(String name, String wakeChannel, int slot, String fingerprint, long basedOn,
                               long advanceTo, boolean skipRunning, List<Tick> ticks)
        implements ScriptCall<ScheduleTickCall.Result> {

    /** One tick's message. */
    public record Tick(long tickMs, String key, long dueMs, byte[] envelope) {
    }

    /** What the script did. */
    public enum Outcome {
        SENT("sent"), STALE("stale"), PAUSED("paused");

        private final String word;

        Outcome(String word) {
            this.word = word;
        }
    }

    /**
     * @param outcome     whether the call was applied
     * @param lastMs      the latest tick accounted for after the call, 0 for none
     * @param sent        messages sent
     * @param skipped     ticks dropped for overlap
     * @param fingerprint the definition recorded before the call, empty for none
     */
    public record Result(Outcome outcome, long lastMs, long sent, long skipped, String fingerprint) {
    }

    private static final Map<String, Outcome> OUTCOMES = Reply.words(Outcome.values(), o -> o.word);

    static final Argv<ScheduleTickCall> ARGV = Argv.<ScheduleTickCall>builder()
            .arg("name", ScheduleTickCall::name)
            .arg("wake_channel", ScheduleTickCall::wakeChannel)
            .arg("slot", ScheduleTickCall::slot)
            .arg("fingerprint", ScheduleTickCall::fingerprint)
            .arg("based_on", ScheduleTickCall::basedOn)
            .arg("advance_to", ScheduleTickCall::advanceTo)
            .arg("skip_running", call -> call.skipRunning() ? "1" : "0")
            .rows("ticks", ScheduleTickCall::ticks, Argv.<Tick>builder()
                    .arg("tick_ms", Tick::tickMs)
                    .arg("key", Tick::key)
                    .arg("due_ms", Tick::dueMs)
                    .arg("envelope", Tick::envelope)
                    .build())
            .build();

    static final Reply<Result> REPLY = Reply.of(Reply.fields().word("outcome", OUTCOMES).number("last_ms")
                    .number("sent").number("skipped").text("fingerprint"),
            head -> new Result(head.word("outcome"), head.number("last_ms"), head.number("sent"),
                    head.number("skipped"), head.text("fingerprint")));

    @Override
    public Script script() {
        return Script.SCHEDULE_TICK;
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
