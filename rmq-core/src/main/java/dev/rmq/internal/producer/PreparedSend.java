package dev.rmq.internal.producer;

import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.SendCall;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.TimeInPastException;
import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.time.Instant;

/** A message checked and encoded, with its slot; and what the send script's reply for it means. */
record PreparedSend(TopicDefinition topic, SlotKeys keys, OutgoingMessage original, SendCall.Message message,
                    byte[] payload) {

    SendReceipt receipt(SendCall.Result result) {
        SendReceipt.Outcome outcome = switch (result.outcome()) {
            case ADDED, BEHIND -> SendReceipt.Outcome.ADDED;
            case MERGED -> SendReceipt.Outcome.MERGED;
            case KEPT -> SendReceipt.Outcome.KEPT;
            case THROTTLED -> SendReceipt.Outcome.THROTTLED;
            case BACKLOG_FULL, TOO_LATE -> throw new IllegalStateException("a refused send has no receipt");
        };
        return new SendReceipt(topic.name(), keys.slot(), message.key(), outcome, Duration.ofMillis(result.lateMs()),
                result.outcome() == SendCall.Outcome.BEHIND);
    }

    /** Why the script refused it. */
    RuntimeException refusal(SendCall.Result result) {
        if (result.outcome() == SendCall.Outcome.TOO_LATE) {
            long due = message.value();
            return new TimeInPastException(topic.name(), message.key(), Instant.ofEpochMilli(due),
                    Instant.ofEpochMilli(due + result.lateMs()), topic.lateTolerance());
        }
        return new BacklogFullException(topic.name(), keys.slot(), message.key(), topic.maxBacklogPerSlot(),
                topic.maxBacklog(), topic.slotAmount());
    }
}
