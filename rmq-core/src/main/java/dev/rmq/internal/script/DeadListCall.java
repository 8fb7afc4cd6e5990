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
        return Replies.rows(Replies.list(reply), 0, 3, (row, at) -> new Entry(Replies.text(row.get(at)),
                Replies.number(row.get(at + 1)), Replies.bytes(row.get(at + 2))));
    }
}
