package dev.rmq.internal.script;

/** dead_purge.lua: removes every dead message of the slot; yields how many. */
public record DeadPurgeCall() implements NumberReply<Long> {

    static final Argv<DeadPurgeCall> ARGV = Argv.<DeadPurgeCall>builder().build();

    @Override
    public Script script() {
        return Script.DEAD_PURGE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Long decode(long reply) {
        return reply;
    }
}
