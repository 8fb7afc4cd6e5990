package dev.rmq.internal.script;

import java.util.List;

/**
 * dead_list.lua: a page of a slot's dead messages, oldest first.
 *
 * @param offset the first entry, from 0
 * @param count  the most entries
 */
public record DeadListCall(long offset, int count) implements ScriptCall<List<DeadListCall.Entry>> {

    /**
     * One dead message.
     *
     * @param key      its key
     * @param diedAtMs when it died, epoch ms by the Redis clock
     * @param envelope its envelope, with the last error
     */
    public record Entry(String key, long diedAtMs, byte[] envelope) {
    }

    static final Argv<DeadListCall> ARGV = Argv.<DeadListCall>builder()
            .arg("offset", DeadListCall::offset)
            .arg("count", DeadListCall::count)
            .build();

    static final Reply<List<Entry>> REPLY = Reply.of(Reply.fields(), "entries",
            Reply.fields().text("key").number("died_ms").bytes("envelope"),
            row -> new Entry(row.text("key"), row.number("died_ms"), row.bytes("envelope")), Reply.Fields::rows);

    @Override
    public Script script() {
        return Script.DEAD_LIST;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public List<Entry> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
