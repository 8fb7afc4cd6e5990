package dev.rmq.internal.script;

import dev.rmq.producer.MessageState;
import dev.rmq.topic.TopicType;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * get.lua: where a message is, by its key.
 *
 * @param type the topic's type
 * @param key  the message key
 */
public record GetCall(TopicType type, String key) implements ScriptCall<Optional<GetCall.Found>> {

    /**
     * A message found.
     *
     * @param state    where it is
     * @param score    due ms or priority (waiting, parked), visible-at ms (delayed), due again ms (retrying),
     *                 lease deadline µs (in flight), death ms (dead)
     * @param envelope its envelope
     * @param progress in flight, its handler's last progress report as stored ('' for none)
     */
    public record Found(MessageState state, double score, byte[] envelope, String progress) {
    }

    static final Argv<GetCall> ARGV = Argv.<GetCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("key", GetCall::key)
            .build();

    private static final Map<String, MessageState> STATES = Map.of("waiting", MessageState.WAITING,
            "delayed", MessageState.DELAYED, "retrying", MessageState.RETRYING, "parked", MessageState.PARKED,
            "in-flight", MessageState.IN_FLIGHT, "dead", MessageState.DEAD);

    static final Reply<Optional<Found>> REPLY = Reply.of(Reply.fields(), "found",
            Reply.fields().word("state", STATES).decimal("score").bytes("envelope").text("progress"),
            row -> new Found(row.word("state"), row.decimal("score"), row.bytes("envelope"), row.text("progress")),
            head -> head.<Found>rows().stream().findFirst());

    @Override
    public Script script() {
        return Script.GET;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Optional<Found> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
