package dev.rmq.internal.script;

/** dead_purge.lua: removes every dead message of the slot; yields how many. */
public record DeadPurgeCall() implements ScriptCall<Long> {

    static final Argv<DeadPurgeCall> ARGV = Argv.<DeadPurgeCall>builder().build();

    static final Reply<Long> REPLY = Reply.of(Reply.fields().number("removed"), head -> head.number("removed"));

    @Override
    public Script script() {
        return Script.DEAD_PURGE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Long decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
