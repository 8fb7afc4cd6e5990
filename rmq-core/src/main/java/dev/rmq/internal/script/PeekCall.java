package dev.rmq.internal.script;

import dev.rmq.producer.MessageState;
import dev.rmq.topic.TopicType;

import java.util.List;
import java.util.Map;

/**
 * peek.lua: a page of one slot's waiting messages in consume order, or of its in-flight ones, without taking them.
 *
 * @param type     the topic's type
 * @param inFlight    true for the in-flight messages by lease deadline, false for the waiting ones
 * @param newestFirst for the waiting ones, the reverse of consume order: what consumers take last comes first
 * @param offset      the first entry, from 0
 * @param count       the most entries
 */
public record PeekCall(TopicType type, boolean inFlight, boolean newestFirst, long offset, int count)
        implements ScriptCall<List<PeekCall.Entry>> {

    /**
     * One message.
     *
     * @param state    WAITING, DELAYED, RETRYING or IN_FLIGHT
     * @param key      its key
     * @param score    due ms or priority (waiting), visible-at ms (delayed, retrying priority), lease deadline µs
     *                 (in flight)
     * @param envelope its envelope
     * @param progress in flight, its handler's last progress report as stored ('' for none)
     */
    public record Entry(MessageState state, String key, double score, byte[] envelope, String progress) {
    }

    static final Argv<PeekCall> ARGV = Argv.<PeekCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("what", call -> call.inFlight() ? "I" : "W")
            .arg("order", call -> call.newestFirst() ? "N" : "F")
            .arg("offset", PeekCall::offset)
            .arg("count", PeekCall::count)
            .build();

    static final Reply<List<Entry>> REPLY = Reply.of(Reply.fields(), "entries",
            Reply.fields().word("state", Map.of("waiting", MessageState.WAITING,
                    "delayed", MessageState.DELAYED, "retrying", MessageState.RETRYING,
                    "in-flight", MessageState.IN_FLIGHT)).text("key").decimal("score").bytes("envelope").text("progress"),
            row -> new Entry(row.word("state"), row.text("key"), row.decimal("score"), row.bytes("envelope"),
                    row.text("progress")),
            Reply.Fields::rows);

    @Override
    public Script script() {
        return Script.PEEK;
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
