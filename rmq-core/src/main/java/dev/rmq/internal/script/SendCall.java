package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

import java.util.ArrayList;
import java.util.List;

/**
 * send.lua: adds or merges messages of one slot.
 *
 * @param type        the topic's type
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param messages    the messages, in order
 */
public record SendCall(TopicType type, String wakeChannel, int slot, List<Message> messages)
        implements ScriptCall<List<SendCall.Outcome>> {

    /**
     * One message.
     *
     * @param key      the merge key
     * @param value    the time range (ms), the priority or the fixed time (epoch ms)
     * @param envelope the encoded envelope
     */
    public record Message(String key, long value, byte[] envelope) {
    }

    /** What the script did with one message. */
    public enum Outcome {
        ADDED, MERGED
    }

    static final Argv<SendCall> ARGV = Argv.<SendCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("wake_channel", SendCall::wakeChannel)
            .arg("slot", SendCall::slot)
            .rows("messages", SendCall::messages, Argv.<Message>builder()
                    .arg("key", Message::key)
                    .arg("value", Message::value)
                    .arg("envelope", Message::envelope)
                    .build())
            .build();

    @Override
    public Script script() {
        return Script.SEND;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public List<Outcome> decode(Object reply) {
        List<Object> merged = Replies.list(reply);
        List<Outcome> outcomes = new ArrayList<>(merged.size());
        for (Object m : merged) {
            outcomes.add(Replies.number(m) == 1 ? Outcome.MERGED : Outcome.ADDED);
        }
        return outcomes;
    }
}
