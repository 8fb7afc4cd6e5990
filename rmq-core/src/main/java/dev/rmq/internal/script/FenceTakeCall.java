package dev.rmq.internal.script;

import java.time.Duration;
import java.util.List;

/**
 * fence_take.lua: makes a worker the slot's owner, fencing out whoever held it before.
 *
 * @param token the new owner's fencing token
 */
public record FenceTakeCall(String token) implements ScriptCall<FenceTakeCall.Taken> {

    /**
     * What taking a slot found.
     *
     * @param previousToken the token of an owner that never released the slot; empty after a clean release; the
     *                      later claim's token when superseded
     * @param holdOff       how long the latest lease in the slot still runs
     * @param superseded    whether a later claim holds the slot, so that nothing was written
     */
    public record Taken(String previousToken, Duration holdOff, boolean superseded) {
    }

    static final Argv<FenceTakeCall> ARGV = Argv.<FenceTakeCall>builder().arg("token", FenceTakeCall::token).build();

    static final Reply<Taken> REPLY = Reply.of(Reply.fields().text("previous").number("hold_ms").flag("superseded"),
            head -> new Taken(head.text("previous"), Duration.ofMillis(head.number("hold_ms")), head.flag("superseded")));

    @Override
    public Script script() {
        return Script.FENCE_TAKE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Taken decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
