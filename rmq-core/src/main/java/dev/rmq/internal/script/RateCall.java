package dev.rmq.internal.script;

import java.util.List;

/**
 * rate.lua: takes tokens from a topic's rate-limit bucket, or gives unused ones back.
 *
 * @param rate  tokens per second
 * @param burst the most tokens the bucket holds
 * @param want  tokens wanted; negative to give tokens back
 */
public record RateCall(double rate, long burst, long want) implements ScriptCall<RateCall.Granted> {

    /**
     * @param tokens the tokens taken
     * @param waitMs when none were, how long until the next one comes
     */
    public record Granted(long tokens, long waitMs) {
    }

    static final Argv<RateCall> ARGV = Argv.<RateCall>builder()
            .arg("rate", RateCall::rate)
            .arg("burst", RateCall::burst)
            .arg("want", RateCall::want)
            .build();

    static final Reply<Granted> REPLY = Reply.of(Reply.fields().number("granted").number("wait_ms"),
            head -> new Granted(head.number("granted"), head.number("wait_ms")));

    @Override
    public Script script() {
        return Script.RATE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Granted decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
