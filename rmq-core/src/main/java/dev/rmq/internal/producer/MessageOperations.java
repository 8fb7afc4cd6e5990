package dev.rmq.internal.producer;

import dev.rmq.internal.inspect.StoredMessages;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.CancelCall;
import dev.rmq.internal.script.GetCall;
import dev.rmq.internal.script.RescheduleCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.internal.validation.MessageArguments;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.StoredMessage;
import dev.rmq.producer.TimeInPastException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** The producer's operations on one message by its key: cancel, reschedule, reprioritize, get. */
final class MessageOperations {

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;

    /** The zone of the producer, for a message reference that names none. */
    private final @Nullable String zone;

    MessageOperations(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts, @Nullable String zone) {
        this.zone = zone;
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
    }

    CompletionStage<Boolean> cancel(MessageRef ref) {
        TopicDefinition topic = topics.require(refOrThrow(ref).topic());
        return scripts.run(slotKeys(topic, ref), new CancelCall(ref.key()));
    }

    /** A new due time; on a priority topic, a new not-before time, the priority kept. */
    CompletionStage<Boolean> reschedule(MessageRef ref, Instant dueTime) {
        TopicDefinition topic = topics.require(refOrThrow(ref).topic());
        return rescore(topic, ref, topic.type() == TopicType.PRIORITY, MessageArguments.checkTime("dueTime", dueTime));
    }

    CompletionStage<Boolean> reprioritize(MessageRef ref, long priority) {
        TopicDefinition topic = topics.require(refOrThrow(ref).topic(), TopicType.PRIORITY);
        return rescore(topic, ref, false, MessageArguments.checkPriority(priority));
    }

    CompletionStage<Optional<StoredMessage>> get(MessageRef ref) {
        TopicDefinition topic = topics.require(refOrThrow(ref).topic());
        SlotKeys slot = slotKeys(topic, ref);
        return scripts.run(slot, new GetCall(topic.type(), ref.key())).thenApply(found -> found.map(f -> StoredMessages.of(topic.name(),
                slot.slot(), ref.key(), f.state(), f.score(), f.envelope(), f.progress())));
    }

    private CompletionStage<Boolean> rescore(TopicDefinition topic, MessageRef ref, boolean notBefore, long value) {
        SlotKeys slot = slotKeys(topic, ref);
        return scripts.run(slot, new RescheduleCall(topic.type(), ref.key(), notBefore, value, keys.wakeChannel(topic.name()),
                slot.slot(), topic.lateTolerance().toMillis())).thenApply(result -> {
                    if (result.outcome() == RescheduleCall.Outcome.TOO_LATE) {
                        throw new TimeInPastException(topic.name(), ref.key(), Instant.ofEpochMilli(value),
                                Instant.ofEpochMilli(value + result.lateMs()), topic.lateTolerance());
                    }
                    return result.outcome() == RescheduleCall.Outcome.CHANGED;
                });
    }

    private SlotKeys slotKeys(TopicDefinition topic, MessageRef ref) {
        return keys.slot(topic.name(), topic.slotOf(ref.effectiveSlotBasis(), ref.zone() != null ? ref.zone() : zone));
    }

    private static MessageRef refOrThrow(MessageRef ref) {
        if (ref == null) {
            throw new IllegalArgumentException("message reference must not be null");
        }
        return ref;
    }
}
