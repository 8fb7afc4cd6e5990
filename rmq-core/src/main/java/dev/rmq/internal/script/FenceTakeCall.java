package dev.rmq.internal.script;

import dev.rmq.consumer.SlotFencing.Taken;

import java.time.Duration;

/**
 * fence_take.lua: makes a worker the slot's owner, fencing out whoever held it before. Its reply is a
 * {@link Taken}.
 *
 * @param token the new owner's fencing token
 */
public record FenceTakeCall(String token) implements ScriptCall<Taken> {

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
