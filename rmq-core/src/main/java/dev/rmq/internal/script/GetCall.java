package dev.rmq.internal.script;

import dev.rmq.producer.MessageState;

import java.util.List;
import java.util.Optional;

/**
 * get.lua: where a message is, by its key.
 *
 * @param key the message key
 */
public record GetCall(String key) implements ScriptCall<Optional<GetCall.Found>> {

    /**
     * A message found.
     *
     * @param state    where it is
     * @param score    due ms or priority (waiting, parked), visible-at ms (delayed, retrying), lease deadline µs
     *                 (in flight), death ms (dead)
     * @param envelope its envelope
     */
    public record Found(MessageState state, double score, byte[] envelope) {
    }

    static final Argv<GetCall> ARGV = Argv.<GetCall>builder().arg("key", GetCall::key).build();

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
        List<Object> parts = Replies.list(reply);
        if (parts.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Found(state(Replies.text(parts.get(0))), Double.parseDouble(Replies.text(parts.get(1))),
                Replies.bytes(parts.get(2))));
    }

    /** The state words of get.lua's reply. */
    static MessageState state(String word) {
        return switch (word) {
            case "waiting" -> MessageState.WAITING;
            case "delayed" -> MessageState.DELAYED;
            case "retrying" -> MessageState.RETRYING;
            case "parked" -> MessageState.PARKED;
            case "in-flight" -> MessageState.IN_FLIGHT;
            case "dead" -> MessageState.DEAD;
            default -> throw new IllegalStateException("unknown message state from Redis: " + word);
        };
    }
}
