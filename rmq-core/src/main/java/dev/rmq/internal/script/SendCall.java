package dev.rmq.internal.script;

import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicType;

import dev.rmq.internal.redis.Envelope;

import java.util.List;

/**
 * send.lua: adds or merges messages of one slot, or on a Redis that is not a Cluster of several slots of a topic.
 *
 * @param type            the topic's type
 * @param wakeChannel     where idle consumers of the topic are woken
 * @param slots           the slots the messages go to, in order: the first {@code messages} of the first share to its
 *                        slot, and so on; one share for a call of one slot. The call passes each slot's keys in
 *                        this order
 * @param maxBacklog      the most messages that may wait in the slot, 0 for no cap
 * @param lateToleranceMs how far behind the Redis clock a fixed time may lie and still be taken
 * @param fifo            whether equals are taken in the order first sent (each message gets its place)
 * @param messages        the messages, in order
 * @param controlled      whether the call needs send_controlled.lua: a backlog cap, FIFO, or a message with a
 *                        not-before time or a rule for a repeated key other than REPLACE; the others go to send.lua, which carries nothing for them. Decided once, by
 *                        {@link #of}
 */
public record SendCall(TopicType type, String wakeChannel, List<Share> slots, int maxBacklog, long lateToleranceMs,
                       boolean fifo, List<Message> messages, boolean controlled)
        implements ScriptCall<List<SendCall.Result>> {

    public SendCall {
        slots = List.copyOf(slots);
        messages = List.copyOf(messages);
        int total = 0;
        for (Share share : slots) {
            total += share.messages();
        }
        if (slots.isEmpty() || total != messages.size()) {
            throw new IllegalArgumentException("the slots' shares " + slots + " do not add up to the call's "
                    + messages.size() + " message(s)");
        }
        if (controlled && slots.size() > 1) {
            throw new IllegalArgumentException("send_controlled.lua takes messages of one slot, not of " + slots.size());
        }
    }

    /** A call of one slot, with its one share. */
    public SendCall(TopicType type, String wakeChannel, int slot, int maxBacklog, long lateToleranceMs, boolean fifo,
                    List<Message> messages, boolean controlled) {
        this(type, wakeChannel, List.of(new Share(slot, messages.size())), maxBacklog, lateToleranceMs, fifo, messages,
                controlled);
    }

    /**
     * The messages of a call that go to one slot.
     *
     * @param slot     the slot
     * @param messages how many of the call's messages, one after another, go to it: at least one
     */
    public record Share(int slot, int messages) {
        public Share {
            if (messages < 1) {
                throw new IllegalArgumentException("a slot's share of a call holds at least one message, not " + messages);
            }
        }
    }

    /**
     * One message.
     *
     * @param key      the merge key
     * @param value    the time range (ms), the priority or the fixed time (epoch ms)
     * @param envelope its envelope ({@code Envelope.encodeNew}), with its time to live and not-before time
     * @param repeated what it does when its key is known to the slot
     */
    public record Message(String key, long value, byte[] envelope, RepeatedKey repeated) {

        /** A message that replaces a waiting one of its key. */
        public Message(String key, long value, byte[] envelope) {
            this(key, value, envelope, RepeatedKey.REPLACE);
        }

        /** The rule's letter in send_controlled.lua. */
        String rule() {
            return switch (repeated.kind()) {
                case REPLACE -> "R";
                case KEEP_FIRST -> "K";
                case DEBOUNCE -> "D";
                case THROTTLE -> "T";
            };
        }
    }

    /** What the script did with one message. */
    public enum Outcome {
        ADDED("added"),
        /** Added while a delivery of its key is in flight: it waits until that delivery ends. */
        BEHIND("behind"),
        MERGED("merged"),
        /** Not written: its key waits or is parked, and the rule keeps the first. */
        KEPT("kept"),
        /** Not written: its key was accepted within the throttle window. */
        THROTTLED("throttled"),
        /** Refused: the slot's backlog is full. */
        BACKLOG_FULL("backlog_full"),
        /** Refused: its fixed time lies further behind the Redis clock than the late tolerance. */
        TOO_LATE("too_late");

        private final String word;

        Outcome(String word) {
            this.word = word;
        }

        /** Whether the script refused it: not written, for a reason the sender is told as an error. */
        public boolean refused() {
            return this == BACKLOG_FULL || this == TOO_LATE;
        }
    }

    /**
     * @param outcome what became of the message
     * @param lateMs  how far behind the Redis clock its fixed time was, 0 when it was ahead
     */
    public record Result(Outcome outcome, long lateMs) {
    }

    /** The reply of both send scripts. */
    static final Reply<List<Result>> REPLY = Reply.of(Reply.fields(), "results",
            Reply.fields().word("outcome", Reply.words(Outcome.values(), o -> o.word)).number("late_ms"),
            row -> new Result(row.word("outcome"), row.number("late_ms")), Reply.Fields::rows);

    private static final Argv<Message> MESSAGE = Argv.<Message>builder()
            .arg("key", Message::key)
            .arg("value", Message::value)
            .arg("envelope", Message::envelope)
            .build();

    private static final Argv<Message> CONTROLLED_MESSAGE = Argv.<Message>builder()
            .arg("key", Message::key)
            .arg("value", Message::value)
            .arg("envelope", Message::envelope)
            .arg("repeated", Message::rule)
            .arg("window_ms", message -> message.repeated().window().toMillis())
            .build();

    /** send.lua's arguments: the common way. */
    static final Argv<SendCall> ARGV = Argv.<SendCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("wake_channel", SendCall::wakeChannel)
            .arg("slots", SendCall::slotsArgument)
            .arg("late_tolerance_ms", SendCall::lateToleranceMs)
            .rows("messages", SendCall::messages, MESSAGE)
            .build();

    /** send_controlled.lua's arguments: with a backlog cap, FIFO or not-before times. */
    static final Argv<SendCall> CONTROLLED_ARGV = Argv.<SendCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("wake_channel", SendCall::wakeChannel)
            .arg("slot", call -> call.slots().get(0).slot())
            .arg("max_backlog", SendCall::maxBacklog)
            .arg("late_tolerance_ms", SendCall::lateToleranceMs)
            .arg("fifo", call -> call.fifo() ? "1" : "0")
            .rows("messages", SendCall::messages, CONTROLLED_MESSAGE)
            .build();

    /** A call of the script its messages need. */
    public static SendCall of(TopicType type, String wakeChannel, int slot, int maxBacklog, long lateToleranceMs,
                              boolean fifo, List<Message> messages) {
        return new SendCall(type, wakeChannel, slot, maxBacklog, lateToleranceMs, fifo, messages,
                controlled(maxBacklog, fifo, messages));
    }

    /**
     * Whether a call needs send_controlled.lua: a backlog cap, FIFO, or a message with a not-before time or a rule
     * for a repeated key other than REPLACE.
     */
    public static boolean controlled(int maxBacklog, boolean fifo, List<Message> messages) {
        boolean controlled = maxBacklog > 0 || fifo;
        for (int i = 0; !controlled && i < messages.size(); i++) {
            Message message = messages.get(i);
            controlled = message.repeated().kind() != RepeatedKey.Kind.REPLACE
                    || Envelope.hasNotBefore(message.envelope());
        }
        return controlled;
    }

    /**
     * A call of send.lua carrying the messages of several slots of a topic, on a Redis that is not a Cluster. None of
     * them may need send_controlled.lua: the caller sends those slot by slot.
     */
    public static SendCall ofSlots(TopicType type, String wakeChannel, List<Share> slots, long lateToleranceMs,
                                   List<Message> messages) {
        if (controlled(0, false, messages)) {
            throw new IllegalArgumentException("a call of several slots takes no message that needs"
                    + " send_controlled.lua (a not-before time, or a rule for a repeated key other than REPLACE)");
        }
        return new SendCall(type, wakeChannel, slots, 0, lateToleranceMs, false, messages, false);
    }

    /**
     * send.lua's {@code slots}: the one slot's index, or each slot's index then its count of messages. The script
     * tells them apart by length: an index has at most five digits ({@code TopicDefinition.MAX_SLOTS}), a list of
     * two slots at least seven characters.
     */
    private String slotsArgument() {
        if (slots.size() == 1) {
            return Integer.toString(slots.get(0).slot());
        }
        StringBuilder text = new StringBuilder();
        for (Share share : slots) {
            text.append(text.isEmpty() ? "" : " ").append(share.slot()).append(' ').append(share.messages());
        }
        return text.toString();
    }

    @Override
    public Script script() {
        return controlled() ? Script.SEND_CONTROLLED : Script.SEND;
    }

    @Override
    public byte[][] argv() {
        return controlled() ? CONTROLLED_ARGV.encode(this) : ARGV.encode(this);
    }

    @Override
    public List<Result> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
