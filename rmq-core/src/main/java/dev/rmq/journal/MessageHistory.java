package dev.rmq.journal;

import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a journal recorded of one message of a key, from its send to its end: its content, its last state, and every
 * change of its state in order. A key sent again after its message ended has a history of its own for each message.
 *
 * @param topic       the topic
 * @param key         the key
 * @param slot        its slot
 * @param type        the topic's type when it was sent
 * @param score       its due time (epoch ms) for range-merge and fixed-time, or its priority
 * @param state       its last state, in the journal's words: {@code sent}, {@code merged}, {@code delivered},
 *                    {@code acked}, {@code retried}, {@code dead}, {@code cancelled}, {@code rescheduled},
 *                    {@code expired}, {@code restored} or {@code released}
 * @param attempts    the deliveries that counted as attempts
 * @param finished    whether it is done with: acknowledged, dead, cancelled, expired, or delivered at most once
 * @param sentAt      when it was first sent
 * @param updatedAt   when its state last changed
 * @param headers     its headers, as last sent
 * @param payload     its payload, as last sent, encoded by the topic's codec
 * @param transitions every change of its state, oldest first
 */
public record MessageHistory(String topic, String key, int slot, TopicType type, long score, String state, int attempts,
                             boolean finished, Instant sentAt, Instant updatedAt, Map<String, String> headers,
                             byte[] payload, List<Transition> transitions) {

    public MessageHistory {
        headers = Map.copyOf(headers);
        transitions = List.copyOf(transitions);
    }

    /**
     * One change of a message's state.
     *
     * @param state   the state it went to, in the words of {@link MessageHistory#state()}
     * @param attempt the attempt it belongs to
     * @param at      when
     * @param worker  the consumer's worker, for a delivery and its end; {@code producer} for a send; for a producer's
     *                change or a restore, what the journal recorded, which may be null
     * @param host    the host that recorded it
     * @param detail  what went wrong, for a retry or a move to dead; a merge's or a reschedule's note; else null
     */
    public record Transition(String state, int attempt, Instant at, @Nullable String worker, @Nullable String host,
                             @Nullable String detail) {
    }
}
